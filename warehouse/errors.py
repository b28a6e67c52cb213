"""Errors that end a command with a one-line message instead of a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A mistake the user can fix; the CLI prints it as one line and exits non-zero."""


class WarehouseBusyError(UserError):
    """Another process holds the DuckDB write lock."""


class InputError(UserError):
    """Bad input data: names the file, the row and the field at fault."""

    def __init__(self, path, message: str, *, row=None, field: str | None = None):
        self.path = str(path)
        self.row = row
        self.field = field
        self.reason = message
        where = [self.path]
        if row is not None:
            where.append(f"row {row}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(f"{', '.join(where)}: {message}")
