"""The warehouse's own relations: the raw schema's DDL, the contract views, subjects, layout and column comments."""
