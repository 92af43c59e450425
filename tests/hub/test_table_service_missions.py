"""The hub deals the secret missions once: journalled with the input that reached the
deal, and a service rebuilt from the journal keeps them and deals nothing again."""

from __future__ import annotations

import random
from pathlib import Path

from risktable.config import HubConfig, TableConfig
from risktable.rules import DealMission
from risktable.rules.bots import HeuristicBot
from risktable.rules.state import DEAL, MISSION_DEAL, OPENING
from risktable.service.table_service import TableService
from risktable.table.autopilot import Autopilot
from tests.table.inputs import CARDS, UIDS


def _service(data_dir: Path, seed: int) -> TableService:
    return TableService(HubConfig(table=TableConfig(seats=4, rules="mission_1993"),
                                  data_dir=data_dir), card_uids=CARDS, seed=seed)


def test_the_deal_is_journalled_with_its_input_and_never_dealt_again(tmp_path: Path) -> None:
    service = _service(tmp_path, 1)
    pilot = Autopilot(service.session, {s: HeuristicBot(s) for s in (1, 2, 3, 4)}, UIDS,
                      random.Random(4))
    while service.session.state.phase in (OPENING, DEAL):
        step = pilot.next_event()
        assert step is not None
        assert service._on_event(*step) is None
    assert service.session.state.phase != MISSION_DEAL
    missions = service.session.state.missions
    journal = [entry.action for entry in service.journal.actions(service.game_id)]
    assert journal == service.session.log
    assert [a.mission for a in journal if isinstance(a, DealMission)] == [
        missions[(service.session.state.first_player + i) % 4] for i in range(4)]
    service.journal.close()

    # Restarted with another seed: the same missions, and the journal did not grow.
    again = _service(tmp_path, 2)
    try:
        assert again.session.state == service.session.state
        again._run_bots()
        assert [entry.action for entry in again.journal.actions(again.game_id)] == journal
    finally:
        again.journal.close()
