// Opens a WebSocket the same way in browsers and Node: the global WebSocket where there is one
// (browsers, Node 22+), the one given to the client (`new Sluice({WebSocket})`), else a small
// built-in client for older Node. The API key rides as the subprotocol "sluice.bearer.<key>"
// next to "sluice" (docs/api.md, WebSockets); it never goes into the URL.

/**
 * A socket of JSON frames: resolves once open; `onFrame` receives each parsed text frame,
 * `onBinary` each binary frame as a Uint8Array (record batches), in the order they came.
 */
export async function openSocket(client, path, { onFrame, onBinary = () => {}, onClose }) {
  const { url, protocols } = client.socketAddress(path);
  let Impl = client.WebSocket ?? globalThis.WebSocket;
  if (!Impl) ({ NodeWebSocket: Impl } = await import("./node_websocket.js"));
  const ws = new Impl(url, protocols);
  ws.binaryType = "arraybuffer"; // a browser's default is Blob, which takes a promise to read
  await new Promise((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (event) => reject(new Error(`WebSocket ${path}: ${event?.message ?? "refused"}`));
    ws.onclose = (event) => reject(new Error(`WebSocket ${path}: closed (${event.code})`));
  });
  ws.onerror = () => {};
  const deliver = (data) => {
    if (data instanceof ArrayBuffer) return onBinary(new Uint8Array(data));
    if (ArrayBuffer.isView(data)) return onBinary(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    let frame;
    try {
      frame = JSON.parse(typeof data === "string" ? data : String(data));
    } catch {
      return;
    }
    onFrame(frame);
  };
  // a WebSocket that still hands out Blobs: read them in turn, the frames after them wait
  let reading = null;
  ws.onmessage = (event) => {
    const data = event.data;
    const blob = typeof Blob !== "undefined" && data instanceof Blob;
    if (!blob && reading === null) return deliver(data);
    const turn = (reading ?? Promise.resolve())
      .then(() => (blob ? data.arrayBuffer() : data))
      .then(deliver)
      .finally(() => {
        if (reading === turn) reading = null;
      });
    reading = turn;
  };
  ws.onclose = (event) => onClose({ code: event.code, reason: event.reason ?? "" });
  return {
    send: (frame) => ws.send(JSON.stringify(frame)),
    close: (code = 1000) => ws.close(code),
  };
}
