import httpx


async def test_create_produce_read(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/topics", json={"name": "t", "partitions": 2})
    assert r.status_code == 201
    r = await client.post(
        "/v1/topics/t/records", json={"records": [{"value": "a", "partition": 1}]}
    )
    assert r.json()["offsets"] == [
        {"partition": 1, "offset": 0, "timestamp": r.json()["offsets"][0]["timestamp"]}
    ]
    r = await client.get("/v1/topics/t/partitions/1/records", params={"offset": 0})
    assert [x["value"] for x in r.json()["records"]] == ["a"]
