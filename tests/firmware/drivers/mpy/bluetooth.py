# Stand-in for the ESP32 `bluetooth` module on the unix port: only UUID, which
# compares by value like the real one.


class UUID:
    def __init__(self, value):
        if isinstance(value, str):
            value = value.replace("-", "").lower()
        self.value = value

    def __eq__(self, other):
        return isinstance(other, UUID) and other.value == self.value
