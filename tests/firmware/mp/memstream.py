# An in-memory stand-in for an asyncio stream to a broker, for MicroPython tests of the
# MQTT client: the test feeds bytes the "broker" sends and reads what the client wrote.
import asyncio


class MemStream:
    def __init__(self):
        self.incoming = bytearray()
        self.written = bytearray()
        self.closed = False
        self._data = asyncio.Event()

    def feed(self, data):
        self.incoming += data
        self._data.set()

    def hangup(self):
        self.closed = True
        self._data.set()

    async def readinto(self, buf):
        while not self.incoming and not self.closed:
            self._data.clear()
            await self._data.wait()
        if not self.incoming:
            return 0
        n = min(len(buf), len(self.incoming))
        buf[:n] = self.incoming[:n]
        self.incoming = self.incoming[n:]
        return n

    def write(self, data):
        if self.closed:
            raise OSError(32)
        self.written += data

    async def drain(self):
        pass

    def close(self):
        self.closed = True
        self._data.set()

    def take(self):
        out = bytes(self.written)
        self.written = bytearray()
        return out


class Opener:
    # Hands out a fresh MemStream per connection attempt; `refuse` makes attempts fail.
    def __init__(self):
        self.streams = []
        self.refuse = False

    async def __call__(self, host, port):
        if self.refuse:
            raise OSError(111)
        s = MemStream()
        self.streams.append(s)
        return s, s
