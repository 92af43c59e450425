# Networking for the seat: MQTT 3.1.1 packets, the asyncio client, WiFi join.
