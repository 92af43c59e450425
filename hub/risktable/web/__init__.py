"""The live board page: map layout, static files and the HTTP server that serves them."""
