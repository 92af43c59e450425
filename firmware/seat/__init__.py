# The seat application: configuration, persistent counters, the link to the hub, views.
