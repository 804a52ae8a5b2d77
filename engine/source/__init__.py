"""What a page is made of, read from disk: its snippet includes, each snippet's closure, hash, declarations and
claims, the numerical pins, the translations and where a page is served."""
