// The built-in WebSocket of Node versions without a global one, against a minimal server in
// this process: binary frames (pushed record batches) arrive as ArrayBuffers, whole and in
// order with the text frames, also when the server sends a message in fragments.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import http from "node:http";
import { once } from "node:events";
import { test } from "node:test";

import { NodeWebSocket } from "../src/node_websocket.js";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** One unmasked frame, as a server sends it. */
function frame(opcode, payload, fin = true) {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0, n]) : Buffer.from([0, 126, n >> 8, n & 0xff]);
  head[0] = (fin ? 0x80 : 0) | opcode;
  return Buffer.concat([head, payload]);
}

test("binary and text frames, whole and in fragments, in the order sent", async () => {
  const big = Buffer.alloc(300, 7);
  const server = http.createServer();
  server.on("upgrade", (request, socket) => {
    const accept = createHash("sha1").update(request.headers["sec-websocket-key"] + GUID).digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    // written byte by byte: frames split across the socket's chunks too
    const out = Buffer.concat([
      frame(0x2, Buffer.from([1, 2, 3])),
      frame(0x1, Buffer.from('{"type":"text"}')),
      frame(0x2, big.subarray(0, 100), false),
      frame(0x0, big.subarray(100, 200), false),
      frame(0x0, big.subarray(200), true),
      frame(0x1, Buffer.from("é"), false),
      frame(0x0, Buffer.from("!"), true),
      frame(0x8, Buffer.from([0x03, 0xe8])),
    ]);
    for (let i = 0; i < out.length; i += 7) socket.write(out.subarray(i, i + 7));
    socket.on("error", () => {});
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const ws = new NodeWebSocket(`ws://127.0.0.1:${server.address().port}/`);
  const got = [];
  ws.onmessage = (event) => got.push(event.data);
  const [closed] = await new Promise((resolve) => (ws.onclose = (event) => resolve([event])));
  server.close();
  assert.equal(closed.code, 1000);
  assert.equal(got.length, 4);
  assert.ok(got[0] instanceof ArrayBuffer);
  assert.deepEqual(new Uint8Array(got[0]), new Uint8Array([1, 2, 3]));
  assert.equal(got[1], '{"type":"text"}');
  assert.ok(got[2] instanceof ArrayBuffer);
  assert.deepEqual(new Uint8Array(got[2]), new Uint8Array(big));
  assert.equal(got[3], "é!");
});
