// Opens a WebSocket the same way in browsers and Node: the global WebSocket where there is one
// (browsers, Node 22+), the one given to the client (`new Sluice({WebSocket})`), else a small
// built-in client for older Node. The API key rides as the subprotocol "sluice.bearer.<key>"
// next to "sluice" (docs/api.md, WebSockets); it never goes into the URL.

/** A socket of JSON frames: resolves once open; `frames` receives each parsed frame. */
export async function openSocket(client, path, { onFrame, onClose }) {
  const { url, protocols } = client.socketAddress(path);
  let Impl = client.WebSocket ?? globalThis.WebSocket;
  if (!Impl) ({ NodeWebSocket: Impl } = await import("./node_websocket.js"));
  const ws = new Impl(url, protocols);
  await new Promise((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (event) => reject(new Error(`WebSocket ${path}: ${event?.message ?? "refused"}`));
    ws.onclose = (event) => reject(new Error(`WebSocket ${path}: closed (${event.code})`));
  });
  ws.onerror = () => {};
  ws.onmessage = (event) => {
    let frame;
    try {
      frame = JSON.parse(typeof event.data === "string" ? event.data : String(event.data));
    } catch {
      return;
    }
    onFrame(frame);
  };
  ws.onclose = (event) => onClose({ code: event.code, reason: event.reason ?? "" });
  return {
    send: (frame) => ws.send(JSON.stringify(frame)),
    close: (code = 1000) => ws.close(code),
  };
}
