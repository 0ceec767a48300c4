"""The caller side of the retrieval service, for any process that searches the user's documents."""
