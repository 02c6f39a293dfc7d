FROM python:3.11-slim
# A regular (non-editable) install of the package, migrations included; the sources are
# removed afterwards, so the server runs the installed copy.
COPY pyproject.toml README.md /tmp/sluice/
COPY app /tmp/sluice/app
RUN pip install --no-cache-dir /tmp/sluice && rm -rf /tmp/sluice
ENV SLUICE_DATA_DIR=/var/lib/sluice
WORKDIR /var/lib/sluice
VOLUME /var/lib/sluice
EXPOSE 8080
# It binds 0.0.0.0, so it refuses to start while its data volume holds no API key. Create one
# in the volume first (printed once):
#   docker run --rm -v sluice-data:/var/lib/sluice IMAGE keys create --principal admin
# and run the server with -e SLUICE_SUPER_USERS=admin so that key may do everything;
# or serve without keys on a network only you reach: -e SLUICE_ALLOW_ANONYMOUS=true
# (docs/security.md). TLS: mount a certificate and key and set SLUICE_TLS_CERTFILE and
# SLUICE_TLS_KEYFILE.
STOPSIGNAL SIGTERM
ENTRYPOINT ["python", "-m", "app"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
