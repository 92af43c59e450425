"""The journal on real SQLite files: round trips, retries, refusals, undo, finishing, tables."""

from __future__ import annotations

import random
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from risktable.dice_stats import MIN_ROLLS
from risktable.journal import (
    ActionMeta,
    AppendConflict,
    DieFace,
    GameClosed,
    Journal,
    JournalError,
    NothingToUndo,
    SeatInput,
    SeatSeq,
    UnknownGame,
)
from risktable.rules import (
    CHANCE,
    Action,
    Attack,
    Claim,
    Config,
    IllegalActionError,
    MalformedActionError,
    OpeningRoll,
    Options,
    Place,
    Roll,
    current_actor,
    legal_actions,
    new_game,
    replay,
)
from risktable.rules.chance import sample_roll
from risktable.rules.record import dumps, loads
from risktable.rules.selfplay import selfplay
from tests.journal.helpers import journal_log, play_into


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal(tmp_path / "journal.sqlite3") as j:
        yield j


def rows(path: Path, sql: str = "SELECT COUNT(*) FROM actions") -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute(sql).fetchone()[0])


CASES = [
    (3, Options(), 11),
    (4, Options(setup="deal", fortify="connected"), 12),
    (5, Options(card_values="slow", occupy_min="survivors"), 13),
    (6, Options(setup="deal"), 14),
]


@pytest.mark.parametrize(("players", "options", "seed"), CASES)
def test_selfplayed_game_round_trips(tmp_path: Path, players: int, options: Options,
                                     seed: int) -> None:
    config = Config(players, options)
    result = next(selfplay(config, 1, seed))
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as j:
        game = j.create_game(config, "t1")
        final = journal_log(j, game, config, result.log)
        assert final == result.final and j.state(game) == result.final
        assert j.export(game) == dumps(config, result.log)
    # A fresh connection folds the file, not a cache.
    with Journal(path, create=False) as j:
        assert j.state(game) == result.final
        loaded_config, actions = j.load(game)
        assert loaded_config == config and actions == result.log
        parsed = loads(j.export(game))
        assert replay(parsed.config, parsed.actions()) == result.final
        entries = j.actions(game)
        assert [e.index for e in entries] == list(range(len(result.log)))
        assert {e.meta.origin for e in entries} == {"seat", "hub"}
        assert all((e.actor == CHANCE) == (e.meta.origin == "hub") for e in entries)
    assert rows(path) == len(result.log)


def test_retry_by_sequence_number_or_index_adds_no_row(journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")
    first = journal.append(game, OpeningRoll((6, 2, 3)), ActionMeta("hub"), index=0)
    assert first.index == 0 and not first.duplicate and first.events
    again = journal.append(game, OpeningRoll((6, 2, 3)), ActionMeta("hub"), index=0)
    assert again.duplicate and again.index == 0 and again.events == []
    claim = Claim(legal_actions(first.state)[5].territory)  # type: ignore[union-attr]
    meta = ActionMeta("seat", seat=1, seq=40)
    placed = journal.append(game, claim, meta)
    retry = journal.append(game, claim, meta)
    assert retry.duplicate and retry.index == placed.index == 1
    assert retry.state == placed.state
    assert rows(journal.path) == 2
    assert journal.last_seq(game, 1) == SeatSeq(None, 40) and journal.last_seq(game, 2) is None


def test_a_rebooted_seat_numbers_afresh(journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")
    s = journal.append(game, OpeningRoll((6, 2, 3))).state
    s = journal.append(game, legal_actions(s)[0],
                       ActionMeta("seat", seat=1, seq=1, boot=77)).state
    # The next seats claim, then seat 1 again, rebooted: seq 1 under boot 78 is new.
    for seat in (2, 3):
        s = journal.append(game, legal_actions(s)[0], ActionMeta("seat", seat=seat)).state
    second = legal_actions(s)[0]
    again = journal.append(game, second, ActionMeta("seat", seat=1, seq=1, boot=78))
    assert not again.duplicate and again.index == 4
    retry = journal.append(game, second, ActionMeta("seat", seat=1, seq=1, boot=78))
    assert retry.duplicate and retry.index == 4
    with pytest.raises(AppendConflict):  # boot 77's seq 1 was the first claim
        journal.append(game, second, ActionMeta("seat", seat=1, seq=1, boot=77))
    assert journal.last_seq(game, 1) == SeatSeq(78, 1)
    assert journal.applied_seqs(game, 1, 77) == [1] == journal.applied_seqs(game, 1, 78)
    assert journal.applied_seqs(game, 1, None) == [] and rows(journal.path) == 5


def test_conflicting_retries_are_refused(journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")
    s = journal.append(game, OpeningRoll((1, 5, 2)), index=0).state
    claims = legal_actions(s)
    journal.append(game, claims[0], ActionMeta("seat", seat=2, seq=7))
    with pytest.raises(AppendConflict, match="sequence number 7"):
        journal.append(game, claims[1], ActionMeta("seat", seat=2, seq=7))
    with pytest.raises(AppendConflict, match="index 0"):
        journal.append(game, OpeningRoll((2, 5, 2)), index=0)
    with pytest.raises(AppendConflict, match="next index is 2"):
        journal.append(game, claims[1], index=5)
    assert rows(journal.path) == 2


def test_refused_actions_leave_no_row(journal: Journal) -> None:
    game = journal.create_game(Config(4), "t1")
    with pytest.raises(IllegalActionError):
        journal.append(game, Claim(3))  # the opening roll comes first
    with pytest.raises(MalformedActionError):
        journal.append(game, OpeningRoll((1, 2, 3, 9)))
    with pytest.raises(MalformedActionError):
        journal.append(game, Claim(99))
    with pytest.raises(MalformedActionError):
        journal.append(game, Place(-1, 1))  # would be written as eastern_australia
    assert rows(journal.path) == 0
    assert journal.state(game) == new_game(Config(4))
    assert journal.append(game, OpeningRoll((3, 4, 6, 1))).index == 0


def test_dice_must_match_the_roll(journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")
    with pytest.raises(JournalError, match="do not match"):
        journal.append(game, OpeningRoll((1, 6, 2)),
                       ActionMeta("hub", dice=(DieFace("a", 1), DieFace("b", 2),
                                               DieFace("c", 6))))
    s = journal.append(game, OpeningRoll((1, 6, 2))).state
    with pytest.raises(JournalError, match="rolls no dice"):
        journal.append(game, legal_actions(s)[0], ActionMeta("hub", dice=(DieFace("a", 1),)))
    assert rows(journal.path) == 1 and rows(journal.path, "SELECT COUNT(*) FROM dice") == 0


def _to_attack(journal: Journal, game: int, config: Config, seed: int) -> None:
    """Play until an attack waits for the defender's choice of dice."""
    for a in next(selfplay(config, 1, seed)).log:
        after = journal.append(game, a).state
        if type(a) is Attack and current_actor(after) != CHANCE:
            return
    raise AssertionError("no defended attack in the game")


def test_nothing_to_undo_before_a_decision(journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")
    with pytest.raises(NothingToUndo):
        journal.undo_last(game)
    journal.append(game, OpeningRoll((4, 1, 2)))
    with pytest.raises(NothingToUndo):
        journal.undo_last(game)  # only a chance outcome so far
    assert len(journal.actions(game)) == 1


def test_undo_withdraws_the_last_decision_and_its_chance_outcomes(journal: Journal) -> None:
    config = Config(3)
    game = journal.create_game(config, "t1")
    _to_attack(journal, game, config, seed=5)
    s = journal.state(game)
    s = journal.append(game, legal_actions(s)[0], ActionMeta("seat", seat=3, seq=1)).state
    roll = sample_roll(random.Random(1), s.attack_dice, s.defend_dice)
    named = (*(DieFace("red", f) for f in roll.attack), *(DieFace("white", f) for f in roll.defend))
    journal.append(game, roll, ActionMeta("seat", seat=1, dice=named))
    live = journal.actions(game)
    undone = journal.undo_last(game)
    # The defence goes, and the roll that answered it goes with it.
    assert [e.action for e in undone.entries] == [e.action for e in live[-2:]]
    assert undone.entries[-1].action == roll and all(e.undone for e in undone.entries)
    assert undone.entries[0].actor != CHANCE
    remaining = [e.action for e in journal.actions(game)]
    assert remaining == [e.action for e in live[:-2]]
    assert journal.state(game) == replay(config, remaining) == undone.state
    assert journal.export(game) == dumps(config, remaining)
    # History is kept: the rows are still there, marked, and the dice still count.
    everything = journal.actions(game, include_undone=True)
    assert len(everything) == len(live) and sum(e.undone for e in everything) == 2
    assert rows(journal.path, "SELECT COUNT(*) FROM undos") == 1
    assert sum(s.rolls for s in journal.die_stats()) == len(named)
    # A second undo takes the attack declaration itself.
    second = journal.undo_last(game)
    assert type(second.entries[0].action) is Attack and len(second.entries) == 1
    assert [e.action for e in journal.actions(game)] == remaining[:-1]
    # The freed index takes a new action, and a fresh connection agrees.
    nxt = legal_actions(journal.state(game))[-1]
    appended = journal.append(game, nxt)
    assert appended.index == len(remaining) - 1
    with Journal(journal.path) as other:
        assert other.state(game) == appended.state
        assert [e.action for e in other.actions(game)] == [*remaining[:-1], nxt]


def test_late_redelivery_of_an_undone_action_is_not_reapplied(journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")
    s = journal.append(game, OpeningRoll((6, 1, 2))).state
    claim = legal_actions(s)[0]
    meta = ActionMeta("seat", seat=1, seq=3)
    journal.append(game, claim, meta)
    journal.undo_last(game)
    again = journal.append(game, claim, meta)
    assert again.duplicate and journal.state(game) == s
    assert journal.last_seq(game, 1) == SeatSeq(None, 3)


def test_finish_abandon_and_closed_games(journal: Journal) -> None:
    config = Config(3)
    result = next(selfplay(config, 1, 21))
    game = journal.create_game(config, "t1")
    journal_log(journal, game, config, result.log)
    wrong = (result.winner + 1) % 3  # type: ignore[operator]
    with pytest.raises(JournalError, match="was won by seat"):
        journal.finish(game, wrong)
    journal.finish(game)
    info = {g.id: g for g in journal.list_games()}[game]
    assert info.status == "finished" and info.winner == result.winner
    assert info.actions == len(result.log) and info.finished is not None
    for act in (lambda: journal.append(game, OpeningRoll((1, 2, 3))),
                lambda: journal.undo_last(game), lambda: journal.finish(game)):
        with pytest.raises(GameClosed, match="is finished"):
            act()
    other = journal.create_game(config, "t1")
    journal.abandon(other)
    assert {g.id: g.status for g in journal.list_games()} == {game: "finished",
                                                              other: "abandoned"}
    with pytest.raises(UnknownGame):
        journal.state(999)
    with pytest.raises(UnknownGame):
        journal.append(999, OpeningRoll((1, 2, 3)))


def test_current_game_per_table(journal: Journal) -> None:
    a = journal.create_game(Config(3), "t1")
    b = journal.create_game(Config(4), "t2")
    assert journal.current_game("t1") is None
    journal.set_current_game("t1", a)
    journal.set_current_game("t2", b)
    assert (journal.current_game("t1"), journal.current_game("t2")) == (a, b)
    with pytest.raises(JournalError, match="belongs to table 't2'"):
        journal.set_current_game("t1", b)
    journal.abandon(a)
    journal.set_current_game("t1", a)  # resuming an abandoned game reopens it
    assert {g.id: (g.status, g.current) for g in journal.list_games()} == {
        a: ("running", True), b: ("running", True)}
    c = journal.create_game(Config(3), "t1")
    journal.finish(c)
    with pytest.raises(GameClosed):
        journal.set_current_game("t1", c)
    assert journal.current_game("t1") == a


def test_two_connections_stay_coherent(tmp_path: Path) -> None:
    config = Config(4)
    log = next(selfplay(config, 1, 8)).log
    with Journal(tmp_path / "j.sqlite3") as first, Journal(tmp_path / "j.sqlite3") as second:
        game = first.create_game(config, "t1")
        for n, a in enumerate(log[:60]):
            (first if n % 3 else second).append(game, a)
        second.undo_last(game)
        first.append(game, log[59])  # first's cache is stale; it must notice the undo
        assert first.state(game) == second.state(game) == replay(config, log[:60])


def test_die_stats_count_every_physical_die(journal: Journal) -> None:
    def loaded(rng: random.Random, attack: int, defend: int) -> Roll:
        fair = sample_roll(rng, attack, defend)
        return Roll((6, *fair.attack[1:]), fair.defend)  # red1 always shows six

    config = Config(3)
    game = journal.create_game(config, "t1")
    log = play_into(journal, game, config, 3, loaded)
    expected: dict[str, list[int]] = {}
    for a in log:
        if type(a) is Roll:
            named = [(f"red{i + 1}", f) for i, f in enumerate(a.attack)]
            named += [(f"white{i + 1}", f) for i, f in enumerate(a.defend)]
        elif type(a) is OpeningRoll:
            named = [(f"opening{i + 1}", f) for i, f in enumerate(a.faces)]
        else:
            continue
        for die, face in named:
            expected.setdefault(die, [0] * 6)[face - 1] += 1
    stats = {s.die: s for s in journal.die_stats()}
    assert {d: list(s.counts) for d, s in stats.items()} == expected
    assert stats["red1"].rolls >= MIN_ROLLS and stats["red1"].verdict() == "suspicious"
    assert stats["white1"].verdict() == "fair" and stats["red2"].verdict() == "fair"
    assert journal.state(game).is_terminal


def test_threads_share_one_journal(journal: Journal) -> None:
    configs = [Config(p) for p in (3, 4, 5, 6)]
    logs = [next(selfplay(c, 1, 30 + n)).log[:300] for n, c in enumerate(configs)]
    games = [journal.create_game(c, f"t{n}") for n, c in enumerate(configs)]
    errors: list[BaseException] = []

    def feed(game: int, log: list[Action]) -> None:
        try:
            for a in log:
                journal.append(game, a)
        except BaseException as exc:  # reported below; a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=feed, args=(g, log)) for g, log in zip(games, logs,
                                                                               strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for game, config, log in zip(games, configs, logs, strict=True):
        assert journal.state(game) == replay(config, log)
        assert journal.export(game) == dumps(config, log)


def test_answered_seqs_continue_each_boot_across_games_and_refusals(journal: Journal) -> None:
    config = Config(3)
    first = journal.create_game(config, "t1")
    for seq in (1, 2, 3):
        journal.record_input(first, SeatInput(1, 77, seq, {"kind": "encoder"}, {}), [])
    journal.finish(first)
    second = journal.create_game(config, "t1")
    journal.record_input(second, SeatInput(1, 77, 4, {"kind": "encoder"}, {}), [])
    journal.record_answer("t1", 1, 77, 6)  # refused: no input row
    journal.record_answer("t1", 1, 77, 5)  # a lower one never lowers the mark
    journal.record_answer("t1", 1, None, 2)
    journal.record_answer("t1", 2, 90, 8)
    journal.record_answer("other", 1, 77, 50)
    assert journal.answered_seqs("t1", 1) == {77: 6, None: 2}
    assert journal.answered_seqs("t1", 2) == {90: 8}
    assert journal.answered_seqs("t1", 3) == {}
    assert rows(journal.path, "SELECT COUNT(*) FROM seat_answers") == 4


def test_recent_events_are_each_boots_last_window_in_any_game(journal: Journal) -> None:
    # What a restarted hub keeps digests of: the applied events of each boot's last
    # `window` numbers, whichever game took them, at this table only.
    config = Config(3)
    first = journal.create_game(config, "t1")
    for seq in range(1, 6):
        journal.record_input(first, SeatInput(1, 77, seq, {"seq": seq}, {}), [])
    journal.record_input(first, SeatInput(1, None, 1, {"seq": 1, "none": True}, {}), [])
    journal.finish(first)
    second = journal.create_game(config, "t1")
    journal.record_input(second, SeatInput(1, 78, 9, {"seq": 9}, {}), [])
    other = journal.create_game(config, "t2")
    journal.record_input(other, SeatInput(1, 77, 6, {"seq": 6}, {}), [])
    assert journal.recent_events("t1", 1, 2) == {
        (77, 4): {"seq": 4}, (77, 5): {"seq": 5}, (None, 1): {"seq": 1, "none": True},
        (78, 9): {"seq": 9}}
    assert journal.recent_events("t1", 2, 2) == {}


def test_die_readings_count_per_seat_whether_or_not_they_settle_a_roll(
        journal: Journal) -> None:
    game = journal.create_game(Config(3), "t1")

    def read(seat: int, seq: int, *faces: tuple[str, int]) -> None:
        event = {"kind": "dice", "roll": 9,
                 "dice": [{"id": d, "face": f, "state": "settled"} for d, f in faces]}
        journal.record_input(game, SeatInput(seat, 1, seq, event, {}), [],
                             dice=tuple(DieFace(d, f) for d, f in faces))

    # The attacker's dice settle nothing yet (the defender's are due); both count.
    read(1, 1, ("e1", 6), ("e2", 6), ("e3", 1))
    read(2, 1, ("e1", 2), ("px-0000002a", 5))
    read(2, 1, ("e1", 2), ("px-0000002a", 5))  # a retransmission: counted once
    read(3, 1, ("m1", 4))
    read(3, 2, ("px-0000002a", 3))  # the smart die moved to seat 3: still one die
    stats = {s.die: (s.kind, s.counts) for s in journal.die_stats()}
    assert stats == {
        "seat 1 e1": ("seat", (0, 0, 0, 0, 0, 1)), "seat 1 e2": ("seat", (0, 0, 0, 0, 0, 1)),
        "seat 1 e3": ("seat", (1, 0, 0, 0, 0, 0)), "seat 2 e1": ("seat", (0, 1, 0, 0, 0, 0)),
        "seat 3 m1": ("manual", (0, 0, 0, 1, 0, 0)),
        "px-0000002a": ("smart", (0, 0, 1, 0, 1, 0)),
    }


def test_a_game_keeps_how_its_cards_are_handled(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        physical = journal.create_game(Config(3), "t")
        dealt = journal.create_game(Config(3), "t", "hub")
        with pytest.raises(JournalError, match="cards must be one of physical, hub"):
            journal.create_game(Config(3), "t", "none")
    with Journal(path) as journal:
        assert [g.cards for g in journal.list_games()] == ["physical", "hub"]
        assert (journal.game(physical).cards, journal.game(dealt).cards) == ("physical", "hub")
