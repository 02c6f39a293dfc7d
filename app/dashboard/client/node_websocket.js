// A WebSocket client for Node versions without a global WebSocket (Node 18 to 21), with the
// browser's event interface (onopen, onmessage, onclose, onerror, send, close) for what the
// client needs: text frames, binary frames (received as an ArrayBuffer, as a browser's with
// binaryType "arraybuffer"), pings answered, close frames, fragmentation. Loaded only when
// there is no global WebSocket, so browsers never import node: modules.

import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

export class NodeWebSocket {
  static CONNECTING = CONNECTING;
  static OPEN = OPEN;
  static CLOSING = CLOSING;
  static CLOSED = CLOSED;

  constructor(url, protocols = [], { headers = {} } = {}) {
    this.url = url;
    this.readyState = CONNECTING;
    this.protocol = "";
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
    this.socket = null;
    this.buffer = Buffer.alloc(0);
    this.fragments = [];
    this.binary = false; // whether the message whose fragments arrive is binary
    this.binaryType = "arraybuffer";
    this.closeSent = false;
    this.closedFired = false;
    const target = new URL(url);
    const secure = target.protocol === "wss:";
    const key = randomBytes(16).toString("base64");
    const request = (secure ? https : http).request({
      hostname: target.hostname,
      port: target.port || (secure ? 443 : 80),
      path: target.pathname + target.search,
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": key,
        ...(protocols.length ? { "Sec-WebSocket-Protocol": protocols.join(", ") } : {}),
        ...headers,
      },
    });
    request.on("upgrade", (response, socket, head) => {
      const expected = createHash("sha1").update(key + GUID).digest("base64");
      if (response.headers["sec-websocket-accept"] !== expected) {
        socket.destroy();
        this.#fail("the server's handshake answer is wrong");
        return;
      }
      this.protocol = response.headers["sec-websocket-protocol"] ?? "";
      this.socket = socket;
      this.readyState = OPEN;
      socket.setNoDelay(true);
      socket.on("data", (chunk) => this.#receive(chunk));
      socket.on("close", () => this.#closed(1006, ""));
      socket.on("error", () => {});
      this.onopen?.({ type: "open" });
      if (head.length) this.#receive(head);
    });
    request.on("response", (response) => {
      response.resume();
      this.#fail(`the server refused the WebSocket: HTTP ${response.statusCode}`);
    });
    request.on("error", (error) => this.#fail(error.message));
    request.end();
  }

  #fail(message) {
    this.onerror?.({ type: "error", message });
    this.#closed(1006, message);
  }

  #closed(code, reason) {
    if (this.closedFired) return;
    this.closedFired = true;
    this.readyState = CLOSED;
    this.socket?.destroy();
    this.onclose?.({ type: "close", code, reason, wasClean: code !== 1006 });
  }

  #receive(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0;
      const opcode = b[0] & 0x0f;
      let length = b[1] & 0x7f;
      let at = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        at = 10;
      }
      if (b[1] & 0x80) at += 4; // servers do not mask; skip a mask key all the same
      if (b.length < at + length) return;
      const payload = b.subarray(at, at + length);
      this.buffer = b.subarray(at + length);
      this.#frame(fin, opcode, payload);
    }
  }

  #frame(fin, opcode, payload) {
    if (opcode === 0x8) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      const reason = payload.subarray(2).toString("utf8");
      if (!this.closeSent) this.#write(0x8, payload.subarray(0, 2));
      this.closeSent = true;
      this.socket.end();
      this.#closed(code, reason);
    } else if (opcode === 0x9) {
      this.#write(0xa, payload);
    } else if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
      if (opcode !== 0x0) this.binary = opcode === 0x2;
      if (!fin) {
        this.fragments.push(Buffer.from(payload));
        return;
      }
      const whole = this.fragments.length ? Buffer.concat([...this.fragments, payload]) : payload;
      this.fragments = [];
      const data = this.binary
        ? whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.length)
        : whole.toString("utf8");
      this.onmessage?.({ type: "message", data });
    }
  }

  #write(opcode, payload) {
    if (!this.socket || this.socket.destroyed) return;
    const n = payload.length;
    const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
    const frame = Buffer.alloc(head + 4 + n);
    frame[0] = 0x80 | opcode;
    if (n < 126) frame[1] = 0x80 | n;
    else if (n < 65536) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(n, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeBigUInt64BE(BigInt(n), 2);
    }
    const mask = randomBytes(4);
    mask.copy(frame, head);
    for (let i = 0; i < n; i++) frame[head + 4 + i] = payload[i] ^ mask[i & 3];
    this.socket.write(frame);
  }

  send(text) {
    if (this.readyState !== OPEN) throw new Error("the WebSocket is not open");
    this.#write(0x1, Buffer.from(text, "utf8"));
  }

  close(code = 1000, reason = "") {
    if (this.readyState === CLOSED || this.closeSent) return;
    this.readyState = CLOSING;
    if (!this.socket) {
      this.#closed(code, reason);
      return;
    }
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.#write(0x8, payload);
    this.closeSent = true;
    setTimeout(() => this.#closed(code, reason), 2000).unref(); // the server's answer, or not
  }
}
