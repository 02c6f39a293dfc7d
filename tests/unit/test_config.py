import pytest

from app.config import Settings, SettingsError


def test_defaults_serve_a_laptop() -> None:
    s = Settings.from_env({})
    assert (s.host, s.port, s.data_dir, s.fsync) == ("127.0.0.1", 8080, "./data", "always")


def test_environment_is_read_and_flags_win() -> None:
    s = Settings.from_env({"SLUICE_PORT": "9000", "SLUICE_FSYNC": "interval"}, port=9100)
    assert s.port == 9100
    assert s.fsync == "interval"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SLUICE_PORT": "abc"}, "SLUICE_PORT='abc' is not an integer"),
        ({"SLUICE_PORT": "70000"}, "SLUICE_PORT=70000: expected 0 to 65535"),
        ({"SLUICE_FSYNC": "sometimes"}, "SLUICE_FSYNC='sometimes': expected one of"),
        ({"SLUICE_MAX_RECORD_BYTES": "1"}, "SLUICE_MAX_RECORD_BYTES=1"),
    ],
)
def test_bad_settings_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env(env)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SLUICE_BACKEND": "kafka"}, "SLUICE_BACKEND=kafka needs SLUICE_KAFKA_BOOTSTRAP"),
        (
            {"SLUICE_BACKEND": "kafka", "SLUICE_KAFKA_BOOTSTRAP": "broker-1"},
            "SLUICE_KAFKA_BOOTSTRAP: bootstrap address 'broker-1' is not host:port",
        ),
        (
            {
                "SLUICE_BACKEND": "kafka",
                "SLUICE_KAFKA_BOOTSTRAP": "127.0.0.1:9092",
                "SLUICE_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
            },
            "SLUICE_KAFKA_SECURITY_PROTOCOL=SASL_SSL needs SLUICE_KAFKA_SASL_USERNAME",
        ),
        ({"SLUICE_BACKEND": "cloud"}, "SLUICE_BACKEND='cloud': expected one of"),
    ],
)
def test_the_kafka_backend_refuses_to_start_half_configured(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env(env)
    assert message in str(info.value)


def test_the_embedded_backend_ignores_the_kafka_settings() -> None:
    s = Settings.from_env({"SLUICE_KAFKA_SECURITY_PROTOCOL": "SSL"})
    assert (s.backend, s.kafka_bootstrap) == ("embedded", "")
