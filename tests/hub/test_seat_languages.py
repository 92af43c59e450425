"""One table, three languages: each seat's birth names its language and the hub writes
that seat's screen in it (a Persian seat controller gets shaped right-to-left rows, a
browser that shapes text itself the logical lines); a seat whose birth names none
reads the table's language."""

from __future__ import annotations

from pathlib import Path

from risktable import i18n
from risktable.broker_address import BrokerAddress
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.hardware.palette import seat_colour
from risktable.i18n.numbers import native_digits
from risktable.service.table_service import TableService
from risktable.table.screens import seat_view
from tests.support.mosquitto import Mosquitto
from tests.support.seat_client import SeatClient

TABLE = "langs"


def _service(broker: Mosquitto, data_dir: Path, language: str) -> TableService:
    return TableService(HubConfig(
        broker=BrokerConfig(BrokerAddress(broker.host, broker.port)),
        table=TableConfig(id=TABLE, seats=3, cards="hub", language=language),
        leds=LedConfig(enabled=False), panel_enabled=False, data_dir=data_dir), seed=3)


def _written(service: TableService, seat: int, lang: str) -> list[str]:
    # The session's lines for ``seat`` as it writes them in ``lang`` (a Persian seat's
    # numbers in Persian digits).
    def lines(session: object) -> list[str]:
        with i18n.using(lang):
            return [native_digits(line) for line in
                    seat_view(service.session.situation(), seat)["lines"]]

    return service.inspect(lines)


def test_each_seat_reads_the_language_its_birth_names(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    service = _service(mosquitto, tmp_path / "data", "tr")
    service.start()
    seats = [SeatClient(mosquitto.host, mosquitto.port, TABLE, 1, lang="pt"),
             SeatClient(mosquitto.host, mosquitto.port, TABLE, 2, lang="fa"),
             SeatClient(mosquitto.host, mosquitto.port, TABLE, 3)]
    try:
        for seat in seats:
            seat.start()
        assert service.hub.wait_for_seats([1, 2, 3], timeout=10)
        portuguese = _written(service, 1, "pt")
        assert portuguese != _written(service, 1, "en")
        shown = seats[0].wait_for_view(
            lambda v: v.get("lines") == portuguese and "rtl" not in v)
        # The seat's colour names it in its own language ("céu", not "sky").
        with i18n.using("pt"):
            assert shown["name"] == i18n.colour(seat_colour(1).name) != seat_colour(1).name
        # The Persian seat controller: the same words as display rows, joined and in
        # visual order, drawn right to left.
        persian = seats[1].wait_for_view(lambda v: v.get("rtl") is True)
        assert any("\ufb50" <= ch <= "\ufeff" for line in persian["lines"] for ch in line)
        # A seat whose birth names no language reads the table's (Turkish here).
        turkish = _written(service, 3, "tr")
        seats[2].wait_for_view(lambda v: v.get("lines") == turkish)
        assert service.inspect(lambda s: [service.session.language(n) for n in (1, 2, 3)]) \
            == ["pt", "fa", "tr"]
    finally:
        for seat in seats:
            seat.close()
        service.stop()


def test_a_browser_that_shapes_gets_logical_persian_lines(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    service = _service(mosquitto, tmp_path / "data", "en")
    service.start()
    phone = SeatClient(mosquitto.host, mosquitto.port, TABLE, 1, lang="fa")
    phone.caps = ("shaping",)
    others = [SeatClient(mosquitto.host, mosquitto.port, TABLE, n) for n in (2, 3)]
    try:
        for seat in (phone, *others):
            seat.start()
        assert service.hub.wait_for_seats([1, 2, 3], timeout=10)
        logical = _written(service, 1, "fa")
        shown = phone.wait_for_view(lambda v: v.get("lines") == logical and "rtl" not in v)
        assert any("\u0621" <= ch <= "\u06d3" for line in logical for ch in line)
        with i18n.using("fa"):
            assert shown["name"] == i18n.colour(seat_colour(1).name)
        # The enrolment's count ("card 1 of 44") in Persian digits, none in ASCII.
        assert not any("0" <= ch <= "9" for line in shown["lines"] for ch in line)
        assert any("۰" <= ch <= "۹" for line in shown["lines"] for ch in line)
    finally:
        for seat in (phone, *others):
            seat.close()
        service.stop()
