"""The web gateway: the public gRPC API over HTTP/JSON (the Connect protocol), and the
spectator and replay viewer served as static files."""
