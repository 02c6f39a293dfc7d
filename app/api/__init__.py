"""HTTP and WebSocket face: thin routers, wire codecs, error mapping."""
