"""JWT tokens: minted by the CLI (and the widget handshake), verified by the gateway."""
