"""Broker addresses given on the command line or in configuration."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PORT = 1883


@dataclass(frozen=True)
class BrokerAddress:
    """Where the MQTT broker listens."""

    host: str
    port: int = DEFAULT_PORT

    @classmethod
    def parse(cls, text: str) -> BrokerAddress:
        """Parse ``HOST``, ``HOST:PORT`` or ``[IPV6]:PORT``.

        >>> BrokerAddress.parse("127.0.0.1:1884")
        BrokerAddress(host='127.0.0.1', port=1884)
        """
        text = text.strip()
        if not text:
            raise ValueError("broker address is empty; expected HOST:PORT")
        host, port_text = text, ""
        if text.startswith("["):
            end = text.find("]")
            if end < 0:
                raise ValueError(f"broker address {text!r} has an unclosed '['")
            host, rest = text[1:end], text[end + 1 :]
            if rest:
                if not rest.startswith(":"):
                    raise ValueError(f"broker address {text!r}: expected ':PORT' after ']'")
                port_text = rest[1:]
        elif text.count(":") == 1:
            host, port_text = text.split(":")
        if not host:
            raise ValueError(f"broker address {text!r} has no host")
        if not port_text:
            return cls(host)
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"broker port {port_text!r} is not a number from 1 to 65535")
        return cls(host, int(port_text))

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"
