# MQTT over TLS for a seat whose config names the table's CA (broker.ca; seat/config.py
# builds the SSL context from it). The TCP socket is dialled as for plain MQTT, then
# wrapped without a handshake: on a non-blocking socket the handshake runs inside the
# client's first writes and reads, each returning None until it is done, which the
# client already treats as "not yet" (net/mqtt.py). So the seat's loop keeps drawing
# and reading its buttons while a slow handshake (ECDSA on an ESP32) is under way, and
# the connect timeout and the watchdog see it as they see any slow connect.


def opener(ctx, dial):
    # An open_connection for net.mqtt.Client: `dial`'s socket wrapped by `ctx`, which
    # checks the broker's certificate against the CA and the name dialled (the host the
    # config names: an address or a name the certificate carries).
    async def open_tls(host, port):
        sock = await dial(host, port)
        try:
            return ctx.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
        except Exception:
            sock.close()
            raise

    return open_tls
