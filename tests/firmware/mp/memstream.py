# An in-memory stand-in for the MQTT client's non-blocking socket to a broker, for
# MicroPython tests: the test feeds bytes the "broker" sends and reads what the client
# wrote. asyncio's poller asks it for readiness through ioctl, as it does a real socket.
import io

_MP_STREAM_POLL = 3
_POLL_RD = 1
_POLL_WR = 4


class MemSock(io.IOBase):
    def __init__(self):
        self.incoming = bytearray()
        self.written = bytearray()
        self.closed = False
        # How many more bytes the send buffer takes (None: any number), for a slow link.
        self.room = None

    def feed(self, data):
        self.incoming += data

    def hangup(self):
        self.closed = True

    def ioctl(self, req, arg):
        if req != _MP_STREAM_POLL:
            return -1  # not a file descriptor, nothing else
        ready = arg & _POLL_WR if self.room != 0 else 0
        if self.incoming or self.closed:
            ready |= arg & _POLL_RD
        return ready

    def readinto(self, buf, nbytes=None):
        if not self.incoming:
            return 0 if self.closed else None
        n = min(len(buf) if nbytes is None else nbytes, len(self.incoming))
        buf[:n] = self.incoming[:n]
        self.incoming = self.incoming[n:]
        return n

    def write(self, data, off=0, n=None):
        # A socket's write(buf, offset, length): as much as the send buffer takes, None
        # when it is full.
        if self.closed:
            raise OSError(32)
        data = memoryview(data)[off:]
        if n is not None:
            data = data[:n]
        if self.room is not None:
            if not self.room:
                return None
            data = data[: self.room]
            self.room -= len(data)
        self.written += data
        return len(data)

    def close(self):
        self.closed = True

    def take(self):
        out = bytes(self.written)
        self.written = bytearray()
        return out


class Opener:
    # Hands out a fresh MemSock per connection attempt; `refuse` makes attempts fail.
    def __init__(self):
        self.streams = []
        self.refuse = False

    async def __call__(self, host, port):
        if self.refuse:
            raise OSError(111)
        s = MemSock()
        self.streams.append(s)
        return s
