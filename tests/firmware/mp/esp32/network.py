# Stand-in for `network` on the unix port: a station interface that is never joined.
STA_IF = 0


class WLAN:
    def __init__(self, interface):
        self.joined = False

    def active(self, on=None):
        return True

    def isconnected(self):
        return self.joined

    def connect(self, ssid, password):
        pass  # never joins

    def disconnect(self):
        pass
