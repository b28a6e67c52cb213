"""Settings: where the warehouse lives, config schemas, plugin folders, file names and random seeds."""
