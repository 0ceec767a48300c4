"""Language-model tasks. Without an API key every task runs on the offline extractive engine."""

OFFLINE_ENGINE = "offline-extractive"
