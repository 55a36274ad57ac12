"""What a reply cap would cut: loops told from long answers."""

from __future__ import annotations

from evals.bench.reply_limits import ModelReplies, _Reply, loop_share


def test_a_reply_that_repeats_itself_is_a_loop_and_a_long_answer_is_not() -> None:
    loop = "I will remember that you like tea and coffee. " * 30
    answer = " ".join(f"word{i}" for i in range(300))
    assert loop_share(loop) > 0.9
    assert loop_share(answer) == 0.0
    assert loop_share("short reply") == 0.0


def test_a_cap_cuts_only_longer_natural_replies_and_saves_time_past_it() -> None:
    replies = ModelReplies(
        "m",
        (
            _Reply(True, 1024, 100_000.0, 110_000.0, 0.95),  # looped to the limit
            _Reply(False, 600, 6_000.0, 7_000.0, 0.0),  # a long answer that ended by itself
            _Reply(False, 50, 500.0, 1_500.0, 0.0),
        ),
    )
    assert replies.cut(512) == 1 and replies.cut(1024) == 0
    saved = (100_000 * (1 - 512 / 1024) + 6_000 * (1 - 512 / 600)) / 118_500
    assert abs(replies.saved(512) - saved) < 1e-9
