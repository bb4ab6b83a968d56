"""The model refers, the store decides: an extraction reply's references resolved against what
it was offered (aizac/memory/references.py, pure).

Each case is one of the mistakes real extractors make (issue 36): a name form the store does not
know instead of an id, an id that was not offered, a fact that replaces another character's
fact, two changes merged in one fact, a relation told as one character's fact, a rule revision
that does not say which rule. Before references the store matched names and keywords, so these
became new characters or unrelated rules replaced each other; now each is either understood
from what the model pointed at, or sent back to the model quoting the ids it may use.
"""

from __future__ import annotations

from aizac.memory.references import (
    CharacterNote,
    Offer,
    Reference,
    RelationNote,
    Reply,
    SettingNote,
    build_offer,
    parse_ref,
    render_cast,
    render_facts,
    resolve,
)

SEOA, MINHO, JAE = "한서아", "박민호", "윤재현"


def offer() -> Offer:
    return build_offer(
        [(SEOA, ["협회장"]), (MINHO, [])],
        [("m-cond", (SEOA,), "char|한서아|condition", "condition", "다리를 다쳤다"),
         ("m-where", (SEOA,), "char|한서아|whereabouts", "whereabouts", "왕도에 있다"),
         ("m-minho", (MINHO,), "char|박민호|condition", "condition", "멀쩡하다"),
         ("m-rel", (SEOA, MINHO), "rel|박민호|한서아", "relation", "서로 믿는 동료다")],
        [("m-rule", "마나", "마나는 달이 뜰 때만 회복된다", "L1")],
        [("m-thread", "복선1", "깨진 인장이 우물 속에 숨겨졌다", "1-2")],
        known={SEOA: ["협회장"], MINHO: [], JAE: ["재현"]},
        scene=[SEOA, "서아", MINHO],
    )


def character(who: str, text: str = "회복했다", **kw: object) -> Reply:
    return Reply(characters=(CharacterNote("characters.facts[0]", who, text, **kw),))  # type: ignore[arg-type]


def test_the_offer_numbers_what_the_store_knows() -> None:
    o = offer()
    assert render_cast(o) == ["c1 한서아 (협회장)", "c2 박민호"]
    assert render_facts(o, relations=False)[0] == "f1 [c1 condition] 다리를 다쳤다"
    assert render_facts(o, relations=True) == ["f4 [c1-c2 relation] 서로 믿는 동료다"]
    assert parse_ref(" [C1] ") == ("c", "c1") and parse_ref("#f12,") == ("f", "f12")
    assert parse_ref("서아") is None and parse_ref("new") is None


def test_an_id_is_who_a_fact_is_about_and_a_missed_replaces_costs_nothing() -> None:
    found = resolve(character("c1", aspect="condition"), offer())
    assert not found.problems
    (fact,) = found.characters
    assert (fact.name, fact.aspect, fact.outdates) == (SEOA, "condition", ())


def test_a_name_form_not_in_the_cast_is_sent_back_quoting_the_ids() -> None:
    """Before: '서아' became a new character, so her change replaced nothing."""
    found = resolve(character("서아", aspect="condition"), offer())
    assert [p.key for p in found.problems] == ["not_in_cast"]
    assert found.problems[0].values["value"] == "서아"
    assert "c1 한서아" in found.problems[0].values["offered"]
    assert found.characters == []


def test_a_known_alias_is_understood_and_a_confirmed_name_form_is_learned() -> None:
    assert resolve(character("협회장", aspect="status"), offer()).characters[0].name == SEOA
    found = resolve(character("c1", aspect="whereabouts", name="서아"), offer())
    assert not found.problems and found.aliases == {"서아": SEOA}  # the beat calls her so
    pronoun = resolve(character("c1", aspect="whereabouts", name="그녀"), offer())
    assert pronoun.aliases == {}  # a name form the beat does not use is never learned


def test_a_name_form_of_someone_else_is_a_problem_not_an_alias() -> None:
    found = resolve(character("c1", aspect="condition", name="재현"), offer())
    assert [p.key for p in found.problems] == ["name_of_other"]


def test_an_id_that_was_not_offered_is_a_problem() -> None:
    assert [p.key for p in resolve(character("c9"), offer()).problems] == ["unknown_cast"]
    reply = character("c1", aspect="condition", replaces=("f99",))
    assert [p.key for p in resolve(reply, offer()).problems] == ["unknown_fact"]


def test_new_with_a_known_name_is_that_character_and_new_needs_a_name() -> None:
    found = resolve(character("new", aspect="goal", name="윤재현"), offer())
    assert found.characters[0].name == JAE and not found.characters[0].new
    fresh = resolve(character("new", aspect="goal", name="강도윤"), offer())
    assert fresh.characters[0].new and fresh.characters[0].name == "강도윤"
    assert [p.key for p in resolve(character("new"), offer()).problems] == ["new_without_name"]


def test_replacing_another_characters_fact_is_a_problem() -> None:
    reply = character("c1", aspect="condition", replaces=("f3",))  # f3 is 박민호's
    assert [p.key for p in resolve(reply, offer()).problems] == ["other_subject"]


def test_a_fact_without_its_aspect_takes_the_slot_of_the_fact_it_replaces() -> None:
    found = resolve(character("c1", aspect="other", replaces=("f2",)), offer())
    assert not found.problems
    assert found.characters[0].aspect == "whereabouts"
    assert found.characters[0].outdates == ("m-where",)


def test_two_changes_merged_in_one_fact_are_sent_back_and_kept_flagged_after() -> None:
    """Before: a merged fact was kept or replaced whole; now the model is asked to split it,
    and if it never does, both old facts stop being current (none is served stale)."""
    reply = character("c1", "회복해 북문으로 갔다", aspect="condition", replaces=("f1", "f2"))
    assert [p.key for p in resolve(reply, offer()).problems] == ["merged"]
    kept = resolve(reply, offer(), salvage=True).characters[0]
    assert kept.flag == "merged" and set(kept.outdates) == {"m-cond", "m-where"}


def test_a_relation_told_as_a_characters_fact_is_filed_by_what_it_replaces() -> None:
    found = resolve(character("c1", "민호와 원수가 되었다", replaces=("f4",)), offer())
    assert not found.problems and found.characters == []
    (rel,) = found.relations
    assert {rel.a, rel.b} == {SEOA, MINHO} and rel.outdates == ("m-rel",)


def test_a_relation_refers_to_two_cast_members() -> None:
    reply = Reply(relations=(RelationNote("relations.facts[0]", "c2", "c1", "원수", ("f4",)),))
    (rel,) = resolve(reply, offer()).relations
    assert {rel.a, rel.b} == {SEOA, MINHO} and rel.outdates == ("m-rel",)
    same = Reply(relations=(RelationNote("r", "c1", "협회장", "자기 자신"),))
    assert [p.key for p in resolve(same, offer()).problems] == ["same_pair"]


def test_a_rule_revises_the_rule_it_names_and_must_say_which() -> None:
    """Before: a rule was replaced by keyword; a generic keyword made unrelated rules replace
    each other, and a revision under another keyword left the old rule in force."""
    revise = Reply(settings=(SettingNote("s", "마나", "마나는 해가 떠야 회복된다", True, "r1"),))
    (rule,) = resolve(revise, offer()).settings
    assert (rule.lineage, rule.revises) == ("L1", "m-rule")
    unsaid = Reply(settings=(SettingNote("s", "규칙", "검은 밤에만 뽑힌다", True, None),))
    assert [p.key for p in resolve(unsaid, offer()).problems] == ["rule_unsaid"]
    slip = Reply(settings=(SettingNote("s", "검", "검은 밤에만 뽑힌다", True, "r1"),))
    assert [p.key for p in resolve(slip, offer()).problems] == ["other_rule"]  # r1 is 마나's
    new = Reply(settings=(SettingNote("s", "규칙", "검은 밤에만 뽑힌다", True, "new"),))
    found = resolve(new, offer())
    assert not found.problems and found.settings[0].lineage == ""


def test_a_thread_closes_only_when_the_reply_names_it() -> None:
    """Before: a beat line that merely named a planted thread closed it."""
    paid = resolve(Reply(payoffs=(Reference("story.pays_off[0]", "t1"),)), offer())
    assert paid.payoffs == ["m-thread"]
    nothing = resolve(Reply(), offer())
    assert nothing.payoffs == []
    wrong = resolve(Reply(payoffs=(Reference("story.pays_off[0]", "t7"),)), offer())
    assert [p.key for p in wrong.problems] == ["unknown_thread"] and wrong.payoffs == []
    slip = resolve(Reply(payoffs=(Reference("story.pays_off[0]", "t1", "복선2"),)), offer())
    assert [p.key for p in slip.problems] == ["other_thread"] and slip.payoffs == []


def test_after_the_repair_turns_an_unresolved_fact_is_kept_aside_flagged() -> None:
    found = resolve(character("그녀", "다리를 다쳤다", aspect="condition"), offer(), salvage=True)
    assert found.characters == []
    assert [(s.text, s.flag) for s in found.story] == [("다리를 다쳤다", "unplaced")]


def test_a_value_another_check_refused_is_flagged_or_left_out() -> None:
    reply = Reply(characters=(
        CharacterNote("characters.facts[0]", "c1", "hurt a leg", "condition"),
        CharacterNote("characters.facts[1]", "c2", "## heading", "condition"),
    ))
    found = resolve(reply, offer(), salvage=True,
                    flags={"characters.facts[0].text": "language",
                           "characters.facts[1].text": "drop"})
    assert [(c.name, c.flag) for c in found.characters] == [(SEOA, "language")]


def test_a_fact_whose_text_names_someone_else_is_asked_about() -> None:
    """A wrong id (c2 for a fact that names 한서아 only) is caught by the store's own names;
    a fact that names someone else but is about ``who`` is confirmed through ``name``."""
    wrong = resolve(character("c2", "한서아는 북문으로 떠났다", aspect="whereabouts"), offer())
    assert [p.key for p in wrong.problems] == ["names_other"]
    assert "c1 한서아" in wrong.problems[0].values["named"]
    right = resolve(character("c1", "한서아는 북문으로 떠났다", aspect="whereabouts"), offer())
    assert not right.problems
    sure = resolve(character("c1", "민호를 구하러 북문으로 갔다", aspect="whereabouts",
                             name=SEOA), offer())
    assert not sure.problems  # the model says whom it means: kept
    quiet = resolve(character("c2", "북문으로 떠났다", aspect="whereabouts"), offer())
    assert not quiet.problems  # no name at all: the reference stands
    pair = Reply(relations=(RelationNote("r", "c1", "c2", "윤재현과 한서아는 원수가 되었다"),))
    assert not resolve(pair, offer()).problems  # 윤재현 is not offered: not a cast member here


def test_a_given_name_in_the_text_counts_when_it_checks_a_reference() -> None:
    """A terse register writes given names ('서아 whereabouts: ...'); a fact filed under
    another member is still asked about. A part two members share names neither."""
    o = build_offer([("한서아", []), ("박민호", []), ("박도윤", [])])
    wrong = resolve(character("c2", "서아 whereabouts: 북문", aspect="whereabouts"), o)
    assert [p.key for p in wrong.problems] == ["names_other"]
    family = resolve(character("c2", "박 씨가 북문으로 갔다", aspect="whereabouts"), o)
    assert not family.problems


def test_a_listed_rule_said_again_as_new_is_that_rule() -> None:
    """Blind first contact: a model restating a listed rule with a label or a scene number
    around it and ``revises: new`` (or no listed id) left several versions of one rule in
    force; its own words are the listed rule's, so it is asked and, set aside, revises it."""
    for revises in ("new", None, "마나 규칙"):
        again = Reply(settings=(SettingNote(
            "s", "세계 규칙", "세계 규칙 — 마나는 달이 뜰 때만 회복된다 (18번째 장면부터)", True,
            revises),))
        asked = resolve(again, offer())
        assert [p.key for p in asked.problems] == ["restated"], revises
        assert asked.problems[0].values["value"] == "r1"
        (kept,) = resolve(again, offer(), salvage=True).settings
        assert (kept.lineage, kept.revises, kept.flag) == ("L1", "m-rule", "unplaced")
    other = Reply(settings=(SettingNote("s", "검", "검은 밤에만 뽑힌다", True, "new"),))
    assert not resolve(other, offer()).problems
    # a revision that changes what the rule says is not a restatement: its reference decides
    changed = Reply(settings=(SettingNote("s", "마나", "마나는 해가 떠야 회복된다", True, "new"),))
    assert not resolve(changed, offer()).problems


def test_a_pairs_relation_told_as_one_characters_fact_is_asked_once() -> None:
    """Blind first contact: a change of a pair's relation filed as one character's fact of no
    slot, with nothing replaced, stayed current beside the pair's next relation."""
    told = character("c1", "한서아와 박민호는 원수가 되었다", aspect="other")
    (question,) = resolve(told, offer()).problems
    assert question.key == "pair_as_fact"
    assert (question.values["other"], question.values["replaces"]) == ("c2", "f4")
    # the same reply again is the model's answer: an event of the two stays her fact
    again = resolve(told, offer(), asked=[(question.key, question.path)])
    assert not again.problems and again.characters[0].text == "한서아와 박민호는 원수가 되었다"
    # a fact with its slot, or naming her alone, asks nothing
    assert not resolve(character("c1", "한서아는 박민호를 구하다 다쳤다", aspect="condition"),
                       offer()).problems
    assert not resolve(character("c1", "한서아는 검을 들었다", aspect="other"), offer()).problems


def test_a_revision_whose_words_are_another_listed_rule_is_asked() -> None:
    """Blind first contact: a reply gave the gate rule's text with the death rule's id and
    keyword (and the reverse), and each rule replaced the other."""
    two = build_offer([(SEOA, [])], [], [
        ("m-gate", "게이트", "게이트가 사흘에 한 번 열린다", "LG"),
        ("m-death", "죽음", "죽으면 이름이 사라진다", "LD")], [], known={SEOA: []}, scene=[SEOA])
    swapped = Reply(settings=(SettingNote("s", "죽음", "세계 규칙 — 게이트가 사흘에 한 번 열린다",
                                          True, "r2"),))
    asked = resolve(swapped, two)
    assert [(p.key, p.values["value"]) for p in asked.problems] == [("echoes_rule", "r1")]
    (kept,) = resolve(swapped, two, salvage=True).settings
    assert (kept.lineage, kept.revises) == ("LG", "m-gate")
    # asked once: the same reply again is the model's answer (the death rule now says it)
    (question,) = asked.problems
    answered = resolve(swapped, two, asked=[(question.key, question.path)])
    assert not answered.problems
    assert (answered.settings[0].lineage, answered.settings[0].revises) == ("LD", "m-death")
    revised = Reply(settings=(SettingNote("s", "죽음", "죽어도 이름이 남는다", True, "r2"),))
    (rule,) = resolve(revised, two).settings
    assert not resolve(revised, two).problems and rule.lineage == "LD"


def test_a_rule_said_again_by_its_own_id_is_that_rule_when_another_says_the_same() -> None:
    """CI, scripted extractor: two listed rules of other keywords say one sentence; a reply
    restating the older one by its id and keyword was refused as restating the newer one."""
    two = build_offer([(SEOA, [])], [], [
        ("m-death", "죽음", "계약은 피로만 맺는다", "LD"),
        ("m-mana", "마나", "마나 규칙(1번째 장면): 계약은 피로만 맺는다", "LM")], [],
        known={SEOA: []}, scene=[SEOA])
    again = Reply(settings=(SettingNote(
        "s", "마나", "마나 규칙(1번째 장면)에 따라 계약은 피로만 맺는다", True, "r2"),))
    placed = resolve(again, two)
    assert not placed.problems
    (rule,) = placed.settings
    assert (rule.lineage, rule.revises, rule.ends) == ("LM", "m-mana", ())


def test_a_rule_of_another_keyword_saying_the_same_sentence_is_no_twin() -> None:
    """CI, scripted extractor: the death rule revised to the mana rule's sentence ended the
    mana rule as its twin (their labels name their keywords); a twin is one rule said twice."""
    two = build_offer([(SEOA, [])], [], [
        ("m-death", "죽음", "죽음 규칙(1번째 장면): 죽은 자는 이름을 잃는다", "LD"),
        ("m-mana", "마나", "마나 규칙(1번째 장면): 계약은 피로만 맺는다", "LM")], [],
        known={SEOA: []}, scene=[SEOA])
    revised = Reply(settings=(SettingNote(
        "s", "죽음", "죽음 규칙(18번째 장면): 계약은 피로만 맺는다", True, "r1"),))
    placed = resolve(revised, two)
    assert not placed.problems
    (rule,) = placed.settings
    assert (rule.lineage, rule.revises, rule.ends) == ("LD", "m-death", ())


def test_a_revision_ends_the_rules_twins_in_force() -> None:
    """Blind first contact: one rule said twice as two rules in force; revising one left the
    other version current."""
    twins = build_offer([(SEOA, [])], [], [
        ("m-a", "게이트", "게이트가 사흘에 한 번 열린다", "LA"),
        ("m-b", "게이트 주기", "세계 규칙 — 게이트가 사흘에 한 번 열린다 (18번째 장면부터)", "LB"),
        ("m-c", "죽음", "죽으면 이름이 사라진다", "LC")], [], known={SEOA: []}, scene=[SEOA])
    revised = Reply(settings=(
        SettingNote("s", "게이트", "게이트가 이레에 한 번 열린다", True, "r1"),))
    (rule,) = resolve(revised, twins).settings
    assert (rule.lineage, rule.revises, rule.ends) == ("LA", "m-a", ("m-b",))
    again = Reply(settings=(
        SettingNote("s", "규칙", "게이트가 사흘에 한 번 열린다!", True, "new"),))
    assert [p.values["value"] for p in resolve(again, twins).problems] == ["r1"]
