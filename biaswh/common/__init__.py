"""What the families' commands share."""
