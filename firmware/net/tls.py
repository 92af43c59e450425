# MQTT over TLS for a seat whose config names the table's CA (broker.ca: the CA's DER in
# base64, from `risktable seat config --broker-ca`). Loaded only by such a seat.
#
# The TCP socket is dialled as for plain MQTT, then wrapped without a handshake: on a
# non-blocking socket the handshake runs inside the client's first writes and reads, each
# returning None until it is done, which the client already treats as "not yet"
# (net/mqtt.py). So the seat's loop keeps drawing and reading its buttons while a slow
# handshake (ECDSA on an ESP32) is under way, and the connect timeout and the watchdog
# see it as they see any slow connect. Mbed TLS allocates its buffers outside
# MicroPython's heap (the C heap on the unix port, ESP-IDF's internal RAM on a device).

import ssl
from binascii import a2b_base64

from net import mqtt


def context(ca):
    # The SSL context trusting the CA in `ca` (base64 DER) alone, checking the broker's
    # certificate and its name (the host dialled); ValueError or TypeError when `ca` is
    # no certificate. From now on every MQTT client of this seat dials through it:
    # net.mqtt's module-level dial, which a Client takes when given no other, is
    # replaced, so seat/app.py needs no line of its own (the 66K start-up heap).
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    # MicroPython's client context checks nothing by default (CERT_NONE); the stubs
    # lack the attribute the port has.
    ctx.verify_mode = ssl.CERT_REQUIRED  # type: ignore[attr-defined]
    ctx.load_verify_locations(cadata=a2b_base64(ca))
    mqtt.dial = opener(ctx, mqtt.dial)
    return ctx


def opener(ctx, dial):
    # An open_connection for net.mqtt.Client: `dial`'s socket wrapped by `ctx`.
    async def open_tls(host, port):
        sock = await dial(host, port)
        try:
            return ctx.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
        except Exception:
            sock.close()
            raise

    return open_tls
