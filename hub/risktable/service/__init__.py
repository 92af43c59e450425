"""The hub service: MQTT link, seat presence, views."""
