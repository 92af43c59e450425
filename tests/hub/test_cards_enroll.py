"""Card enrollment end to end: mosquitto, the running hub put in enrollment by
`risktable cards enroll`, a seat tapping cards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.cards.deck_file import DeckFileError, EnrolledCard, load_deck, save_deck
from risktable.cards.enroll import Enrollment
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.rules import classic_board
from risktable.rules.board import SYMBOLS, WILD
from risktable.rules.decks import PLACEHOLDER_STARS, ceasefire_card
from risktable.service.table_service import NOT_STARTED, NOT_STARTED_REASON, TableService
from tests.e2e.hub_driver import LedLog
from tests.support.cli import run
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder

TABLE = "enroll"


class Seat:
    """Seat 2's inputs, each waited for until the hub answers it."""

    def __init__(self, broker: Mosquitto, seat: int = 2) -> None:
        self.seat = seat
        self.seq = 0
        self.client = Recorder(broker.host, broker.port, f"seat{seat}")
        self.client.subscribe(f"risk/{TABLE}/seat/{seat}/+")

    def send(self, kind: str, **fields: object) -> dict[str, object]:
        self.seq += 1
        seq = self.seq
        msg = messages.message("event", seat=self.seat, seq=seq, kind=kind, **fields)
        self.client.publish(topics.seat(TABLE, self.seat, "event"), messages.encode(msg))
        _, answer, _ = self.client.wait_for(
            lambda t, m, r: m is not None and m.get("seq") == seq
            and (t.endswith("/ack") or t.endswith("/error")))
        assert answer is not None
        return answer


def start_hub(broker: Mosquitto, data_dir: Path, leds: LedLog) -> TableService:
    """A 3-seat classic hub with no deck enrolled."""
    service = TableService(HubConfig(
        broker=BrokerConfig(BrokerAddress(broker.host, broker.port)),
        table=TableConfig(id=TABLE, seats=3), leds=LedConfig(enabled=False),
        panel_enabled=False, data_dir=data_dir), show_leds=leds)
    service.start()
    return service


def referee(capsys: pytest.CaptureFixture[str], broker: Mosquitto, data_dir: Path,
            *argv: str) -> str:
    """Run a referee command against the hub; its output, which must say it succeeded."""
    config = data_dir.parent / "hub.toml"
    config.write_text(f'[table]\nid = "{TABLE}"\n[data]\ndir = "{data_dir}"\n')
    code, out, err = run(capsys, *argv, "--config", str(config),
                         "--broker", f"{broker.host}:{broker.port}")
    assert code == 0, out + err
    return out


def uid(card: int) -> str:
    return f"04{card:02X}A1B2C3D4E5"


@pytest.mark.slow
def test_the_running_hub_enrolls_the_deck_with_refusals_and_a_restart(
        fresh_mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = classic_board()
    data = tmp_path / "data"
    leds = LedLog()
    hub = start_hub(fresh_mosquitto, data, leds)
    assert hub.deck_problem() is not None
    out = referee(capsys, fresh_mosquitto, data, "cards", "enroll", "--seat", "2")
    assert out.startswith("enrolling the 1993 deck at seat 2: 0 of 44 cards known; saved "
                          "after each card; game 1 waits: seat 2 enrolls the 1993 deck")
    seat = Seat(fresh_mosquitto)
    other = Seat(fresh_mosquitto, seat=3)
    # Five cards, the second one with its symbol turned one step on.
    for card in range(5):
        assert seat.send("card", uid=uid(card))["t"] == "ack"
        if card == 1:
            assert seat.send("encoder", steps=1)["t"] == "ack"
        assert seat.send("button", button="confirm", press="short")["t"] == "ack"
    # The LED board lights the next card's territory; the other seats show the progress.
    assert {t for t, light in leds.scenes[-1][1].items() if light.blink} == {
        board.territory_ids[5]}
    other.client.wait_for(lambda t, m, r: t.endswith("/3/view") and m is not None
                          and m.get("lines") == ["Seat 2 enrolls cards", "5 of 44 cards"]
                          and "enroll" not in m)
    # The enrolling seat's view names the card asked for (a seat without a reader taps
    # the keyboard deck's tag for it).
    seat.client.wait_for(lambda t, m, r: t.endswith("/2/view") and m is not None
                         and m.get("enroll") == 5 and m.get("lines", [""])[0] == "Tap the card of")
    # A tag already on card 0 cannot become card 5; another seat may not take part.
    refused = seat.send("card", uid=uid(0))
    assert refused["code"] == "not_allowed" and "already" in str(refused["detail"])
    assert other.send("card", uid=uid(9))["detail"] == "Cards are being enrolled at seat 2"
    assert referee(capsys, fresh_mosquitto, data, "table", "status") == (
        "game 1 waits: seat 2 enrolls the 1993 deck, 5 of 44 cards so far\n")
    # The game has not started: no seat was asked to roll for it.
    assert not [m for t, m, _ in other.client.messages if t.endswith("/3/cmd")]
    hub.stop()  # interrupted before the end

    # Progress survived: the enrollment carries on at card 6 and finishes the deck, and
    # the restarted hub expects each seat's next event number.
    hub = start_hub(fresh_mosquitto, data, leds)
    assert referee(capsys, fresh_mosquitto, data, "table", "status") == (
        "game 1 (3 seats): not started, its deck is not enrolled\n")
    assert "5 of 44 cards known" in referee(capsys, fresh_mosquitto, data, "cards", "enroll",
                                            "--seat", "2")
    for card in range(5, board.deck_size):
        assert seat.send("card", uid=uid(card))["t"] == "ack", card
        assert seat.send("button", button="confirm", press="short")["t"] == "ack"
    # The game takes its cards now, and starts by itself: the opening roll is armed.
    assert hub.enrolling is None and hub.deck_problem() is None
    other.client.wait_for(lambda t, m, r: t.endswith("/3/cmd") and m is not None
                          and m.get("cmd") == "arm_dice")
    assert referee(capsys, fresh_mosquitto, data, "table", "status").startswith(
        "game 1 (3 seats): ")
    # The game's view asks for no card any more.
    seat.client.wait_for(lambda t, m, r: t.endswith("/2/view") and m is not None
                         and m.get("phase") == "setup" and "enroll" not in m
                         and "Tap the card of" not in m.get("lines", []))
    hub.stop()
    seat.client.close()
    other.client.close()

    deck = load_deck(data / "cards.json", board)
    assert len(deck) == board.deck_size
    assert {c.card for c in deck.values()} == set(range(board.deck_size))
    placeholder = board.card_symbols
    turned = (placeholder[1] + 1) % 3
    assert deck[uid(1)].printed == turned
    assert all(deck[uid(c)].printed == placeholder[c] for c in range(board.deck_size) if c != 1)
    assert all(deck[uid(c)].printed == WILD for c in range(board.size, board.deck_size))
    doc = json.loads((data / "cards.json").read_text())
    assert doc["cards"][uid(1)] == {"card": "northwest_territory", "symbol": SYMBOLS[turned]}


def test_back_and_retap_replace_a_card() -> None:
    board = classic_board()
    enrollment = Enrollment(board, {})
    assert enrollment.tap("AA00AA00").accepted and enrollment.confirm().accepted
    assert enrollment.back().accepted and enrollment.position == 0
    assert enrollment.tap("BB00BB00").accepted and enrollment.confirm().accepted
    assert set(enrollment.enrolled) == {"BB00BB00"}
    assert not enrollment.turn(1).accepted  # nothing tapped yet for card 2


@pytest.mark.slow
def test_the_2016_deck_records_stars_and_the_ceasefire_card(
    fresh_mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = classic_board()
    data = tmp_path / "data"
    hub = start_hub(fresh_mosquitto, data, LedLog())
    assert referee(capsys, fresh_mosquitto, data, "cards", "enroll", "--seat", "2", "--deck",
                   "2016").startswith("enrolling the 2016 deck at seat 2: 0 of 43 cards known")
    seat = Seat(fresh_mosquitto)
    # Card 0 turned away from its placeholder stars; the ceasefire card has none to turn.
    for card in range(board.size):
        assert seat.send("card", uid=uid(card))["t"] == "ack", card
        if card == 0:
            assert seat.send("encoder", steps=1)["t"] == "ack"
        assert seat.send("button", button="confirm", press="short")["t"] == "ack"
    assert seat.send("card", uid=uid(99))["t"] == "ack"
    refused = seat.send("encoder", steps=1)
    assert refused["code"] == "not_allowed" and "nothing to choose" in str(refused["detail"])
    assert seat.send("button", button="confirm", press="short")["t"] == "ack"
    assert hub.enrolling is None  # the whole deck is in: back to the game
    hub.stop()
    seat.client.close()

    deck = load_deck(data / "cards-2016.json", board, "2016")
    assert len(deck) == board.size + 1
    assert deck[uid(0)].printed == 3 - PLACEHOLDER_STARS[0]
    assert all(deck[uid(c)].printed == PLACEHOLDER_STARS[c] for c in range(1, board.size))
    assert deck[uid(99)] == EnrolledCard(ceasefire_card(board), 0)
    doc = json.loads((data / "cards-2016.json").read_text())
    assert doc["deck"] == "2016" and doc["cards"][uid(99)] == {"card": "ceasefire", "stars": 0}
    # The 1993 deck's file is another file: nothing was written there.
    assert not (data / "cards.json").exists()


def test_a_deck_file_of_the_other_edition_is_refused(tmp_path: Path) -> None:
    board = classic_board()
    save_deck(tmp_path / "cards.json", board, {"AA00AA00": EnrolledCard(0, 2)}, "2016")
    with pytest.raises(DeckFileError, match="holds the 2016 deck, not the 1993 deck"):
        load_deck(tmp_path / "cards.json", board, "1993")
    (tmp_path / "bad.json").write_text(json.dumps(
        {"format": "risktable-deck", "deck": "2016", "cards": {"AA": {"card": "alaska",
                                                                   "stars": 3}}}))
    with pytest.raises(DeckFileError, match="stars must be 0, 1 or 2"):
        load_deck(tmp_path / "bad.json", board, "2016")


def test_stars_toggle_between_one_and_two() -> None:
    board = classic_board()
    enrollment = Enrollment(board, {}, deck="2016")
    assert enrollment.size == board.size + 1
    assert enrollment.tap("AA00AA00").accepted
    first = enrollment.lines()[1]
    assert enrollment.turn(1).accepted and enrollment.lines()[1] != first
    assert enrollment.turn(1).accepted and enrollment.lines()[1] == first
    assert enrollment.turn(-3).accepted and enrollment.lines()[1] != first


def ask(capsys: pytest.CaptureFixture[str], broker: Mosquitto, data_dir: Path,
        *argv: str) -> tuple[int, str]:
    """A referee command against the hub: its exit code and output, whatever it was."""
    config = data_dir.parent / "hub.toml"
    config.write_text(f'[table]\nid = "{TABLE}"\nseats = 3\n[data]\ndir = "{data_dir}"\n')
    code, out, err = run(capsys, *argv, "--config", str(config),
                         "--broker", f"{broker.host}:{broker.port}")
    return code, out + err


def test_an_enrollment_is_cancelled_resumed_and_ended_by_a_new_game(
        fresh_mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    hub = start_hub(fresh_mosquitto, data, LedLog())
    seat, other = Seat(fresh_mosquitto), Seat(fresh_mosquitto, seat=3)
    try:
        assert ask(capsys, fresh_mosquitto, data, "cards", "cancel") == (
            1, "no card enrollment is open (risktable cards enroll starts one)\n")
        referee(capsys, fresh_mosquitto, data, "cards", "enroll", "--seat", "2")
        for card in range(2):
            assert seat.send("card", uid=uid(card))["t"] == "ack"
            assert seat.send("button", button="confirm", press="short")["t"] == "ack"
        # Cancelled: the cards so far are kept, the seats show the waiting game again
        # and take no enrollment input.
        assert referee(capsys, fresh_mosquitto, data, "cards", "cancel") == (
            "the enrollment at seat 2 is cancelled with 2 of 44 cards kept; risktable cards "
            "enroll resumes it; game 1 (3 seats): not started, its deck is not enrolled\n")
        assert hub.enrolling is None
        other.client.wait_for(lambda t, m, r: t.endswith("/3/view") and m is not None
                              and m.get("lines") == NOT_STARTED)
        assert seat.send("card", uid=uid(2))["detail"] == NOT_STARTED_REASON
        # Resumed where it stopped.
        assert "2 of 44 cards known" in referee(capsys, fresh_mosquitto, data, "cards",
                                                "enroll", "--seat", "2")
        assert seat.send("card", uid=uid(2))["t"] == "ack"
        assert seat.send("button", button="confirm", press="short")["t"] == "ack"
        # A new game with physical cards cannot start while the deck is partly enrolled:
        # refused with the reason; the enrollment goes on.
        assert ask(capsys, fresh_mosquitto, data, "games", "new") == (
            1, "no new game: the 1993 deck is not enrolled (3 of 44 cards); finish the "
            "enrollment at seat 2 first, or start it with hub-dealt cards (games new --cards "
            "hub); game 1 carries on\n")
        assert hub.enrolling is not None and hub.game_id == 1
        # One with hub-dealt cards ends the enrollment and starts: a rule set for 3 or
        # more players takes this table's 3 seats, and the seats roll for the start.
        code, out = ask(capsys, fresh_mosquitto, data, "games", "new", "--rules",
                        "capital_1993", "--cards", "hub")
        assert code == 0 and out.startswith(
            "game 2 started (capital_1993, 3 seats, goal=capitals, hub-dealt cards); game 1 "
            "kept as abandoned; the enrollment at seat 2 ended (3 of 44 cards kept); game 2 "
            "(3 seats, goal=capitals): "), out
        assert hub.enrolling is None
        other.client.wait_for(lambda t, m, r: t.endswith("/3/cmd") and m is not None
                              and m.get("cmd") == "arm_dice")
        assert load_deck(data / "cards.json", classic_board()).keys() == {
            uid(c) for c in range(3)}
    finally:
        hub.stop()
        seat.client.close()
        other.client.close()
