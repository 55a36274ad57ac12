"""The noise detectors: junk, empty bullets, model names, screenshot details."""

from __future__ import annotations

import pytest

from evals.scorers._detect import junk_lines, junk_reason, model_name_in, screenshot_overlap


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("None", "placeholder"),
        ("none.", "placeholder"),
        ("N/A", "placeholder"),
        ("**TODO**", "placeholder"),
        ("...", "placeholder"),
        # What Qwen2.5-Coder 1.5B wrote under empty headers in recorded runs (issue 11).
        ("[none]", "placeholder"),
        ("(none)", "placeholder"),
        ("No interests listed", "placeholder"),
        ("no specific projects mentioned", "placeholder"),
        ("None mentioned.", "placeholder"),
        # The section's kind said to be absent (2026-12-02, a default-run file).
        ("User requested: No preferences.", "placeholder"),
        ("no specific interests", "placeholder"),
        ("No peanuts", None),
        ("No preference for window seats", None),
        ('{{"name": "weather", "arguments": {"location": "cycling"}}}', "tool call text"),
        ('{"name": "save_memory", "parameters": {"content": "Likes tea"}}', "tool call text"),
        ("User is an AI assistant", "assistant chatter"),
        ("As an AI language model, I have reorganised your memory.", "assistant chatter"),
        ("I'll remember that you like tea!", "assistant chatter"),
        ("Sure! The user likes tea", "assistant chatter"),
        ("Memory saved successfully", "assistant chatter"),
        ("Here is the compacted memory", "assistant chatter"),
        ("Prefers light mode in all apps", None),
        ("User requested: Never schedule meetings before 10am", None),
        ("Nonetheless prefers tea", None),
        ("OK, decision made: we're going with FastAPI", None),  # the user's words
        ("Is a nurse who works night shifts", None),
        ("No meetings before 10am", None),
        ("No dairy: lactose intolerant", None),
        ("Not fond of being recorded", None),
        ("Nothing with peanuts, ever", None),
        ("Builds an AI assistant for radiologists", None),
        ("Is an AI assistant developer at a startup", None),
        ('Keeps settings in a JSON file like {"theme": "dark"}', None),
        # Placeholders in the other forms the audit of 41 real cells found (issue 11):
        # a container label with nothing after it, "no ... yet", a sentence saying a section
        # is empty, section names as content, a template slot, names that stand for any name.
        ("Notes: None", "placeholder"),
        ("[projects: None]", "placeholder"),
        ("Current tasks: n/a", "placeholder"),
        ("no notes yet", "placeholder"),
        ("Nothing so far.", "placeholder"),
        ("There are no specific interests mentioned.", "placeholder"),
        ("There is no workflow recorded", "placeholder"),
        ("Workflow", "placeholder"),
        ("interests, projects and notes", "placeholder"),
        ("<bullet>", "placeholder"),
        ("{fact}", "placeholder"),
        ("Key projects: Project X, Project Y", "placeholder"),
        # ... and what must stay: an attribute whose value is "none" says something.
        ("Allergies: none", None),
        ("Dietary restrictions: none known", None),
        ("Project Phoenix, due in May", None),
        ("Notes: reads German fluently", None),
        ("Interested in workflow automation for small teams", None),
        # The memory tools' own words and raw data.
        ("<tool_response> units: km Current MEMORY.md content: </tool_response>", "tool call text"),
        ("old_text: Maya - new_text: Mia", "tool call text"),
        ("User requested: To update the old text in long-term memory.", "tool call text"),
        ("Always proofread new text before sending it", None),
        ('{"mood": "good", "humor": "good"}', "data literal"),
        ('{"redox reactions", "programming"}', "data literal"),
        ('["Python", "Go"]', "data literal"),
        ("[travel, cycling, reading]", None),
        ("[balcony faces south]", None),
        # Questions and logs of the conversation state nothing about the user.
        ("What should I pack for one night in Edinburgh?", "question"),
        ("User requested: Which basil variety grows best in a pot?", "question"),
        ('Likes to be asked "Anything else?" at the end', None),
        ("how far is a half marathon", "question"),  # a question without its mark
        ("User requested: What is VACUUM FULL", "question"),
        ("What's the best time to water tomatoes", "question"),
        ("Could you stick to grams and litres?", None),  # a standing rule asked politely
        ("Would you please always answer in Spanish?", None),
        ("Can you help me plan her first week?", "question"),
        ("What is on the shopping list: milk, eggs", None),  # a label, then the answer
        ("How I take my coffee: black, no sugar", None),
        ("Whatever the weather, cycles to work", None),
        ("User asked about penicillin.", "conversation log"),
        ("plan_first_week", "task name"),  # the assistant's task, named as an identifier
        ("suggest_fish_recipe", "task name"),
        ("dark_mode", None),  # a setting written the same way
        ("metric_units: km, kg", None),
        ("plan a trip", "question"),  # in prose: a task given (the request rule, 2026-12-05)
        ("The user wondered whether it would rain", "conversation log"),
        ("User asked to always answer in British English", None),
        ("User asked for short answers with bullet points", None),
        # Rule 1's other shapes (2026-12-03): memsys's own prompt lines, the tools' names, the
        # assistant apologising or offering help, the conversation described or pasted.
        ("## Projects (ongoing projects, tech stack details)", "prompt text"),
        ("1. MERGE duplicate entries -- if the same fact appears", "prompt text"),
        ("Preferences (stable preferences for tools, UI, workflow)", "prompt text"),
        ("Stable preferences for tea", None),
        ("The user requested: search_memory", "tool call text"),
        ("User requested: Save memory.", "tool call text"),
        ("The user explicitly asked to remember to update memory.", "tool call text"),
        ("Saves memory cards for the camera", None),
        ("Save memory prefers metric units", None),  # the fact, the tool's words stuck on
        ("I'm sorry, but I can't assist with that.", "assistant chatter"),
        ("I am here to assist you with any questions you may have.", "assistant chatter"),
        ("I'm here to help.", "assistant chatter"),
        ("I am here to help patients and provide excellent care.", None),  # a claim (2026-12-05)
        ("Sorry-looking sofa in the hall", None),
        ("The conversation segment mentions the user's preferences", "conversation log"),
        ("The user is using the assistant to help with their study.", "conversation log"),
        ("user: always km please [assistant]: Sure, 21.1 km.", "conversation log"),
        ("Uses the AI assistant for emails", None),
        ("Chat group with the climbing club", None),
        ("ongoing projects, upcoming projects", "placeholder"),
        ("Key projects: Project A, Project B", "placeholder"),
        ("Current project: Atlas", None),
        # What was done to the memory, logged as an entry; a request for help of the moment;
        # a heading of a tool description's guardrails (2026-12-03).
        ("Corrected name in profile", "conversation log"),
        ("JSON object for first week planning added to notes", "conversation log"),
        ("Profile updated with new recipe information", "conversation log"),
        ("She saves it wrong.", "conversation log"),  # wrong, and nothing of what is right
        ("You saved that wrong", "conversation log"),
        ("Also, my daughter's name is Mia, not Maya. You saved it wrong.", None),
        ("You've got that wrong in your memory: I'm pescatarian, not vegetarian.", None),
        ("Often gets the dosage wrong", None),
        ("Keeps notes in Obsidian", None),
        ("Added oat milk to the shopping list", None),
        ("Moved to the Berlin office", None),
        ("User requested: tips for commute", "question"),
        ("Help with campaign brief", "question"),
        ("Tips in bullet points, please", None),
        # Ideas asked for by their topic and tasks given to the assistant are requests of
        # the moment; a liking and a standing instruction are not (2026-12-05).
        ("User requested: Fish recipe ideas under 30 minutes", "question"),
        ("Gift ideas for Mum", "question"),
        ("User requested: Plan a balcony garden with cherry tomatoes and basil.", "question"),
        ("Find the cheapest flights to Lyon", "question"),
        ("Prefers recipe ideas with fish", None),
        ("The user likes gift ideas", None),
        ("Write a report every Friday", None),
        ("User requested: Never suggest recipes with shellfish", None),
        ("SAVE when:", "prompt text"),
        ("DO NOT save:", "prompt text"),
        ("Save receipts when travelling", None),
        # Every line of the shipped tool descriptions, their quoted examples not; what the
        # assistant did and the user's courtesies (2026-12-03, third session).
        (
            "Important personal context: profession, domain expertise, key ongoing projects",
            "prompt text",
        ),
        ("Recurring workflow patterns you have observed multiple times.", "prompt text"),
        ("User requested: What to look for, in natural language.", "prompt text"),
        ("User requested: Always answer in British English", None),
        ("Prefers recurring invoices on the first of the month", None),
        ("The assistant provided the answer, which is 150 grams.", "conversation log"),
        ("Helped the user outline the quarterly report", "conversation log"),
        ("The user thanked the assistant for being a lifesaver", "conversation log"),
        ("Suggested high-contrast palettes for colour", None),
        ("Helps at the food bank on Saturdays", None),
        # Template fields all left empty; an empty section said of the user; the assistant's
        # "I don't have access", not the user's "I don't have any allergies".
        ("[name: User, profession: None, key projects: None]", "placeholder"),
        ("profession: [not specified], key projects: [not specified]", "placeholder"),
        ("name: Priya, profession: None", None),
        ("We don't have any specific interests or hobbies.", "placeholder"),
        ("The user has no personal context yet", "placeholder"),
        ("I don't have any allergies", None),
        ("The user has no pets", None),
        ("I don't have access to your calendar.", "assistant chatter"),
        # A request to remember logged without its value; a code fence; "Discussed ..."
        (
            "The user has requested to remember the rotation schedule for the team",
            "conversation log",
        ),
        ("User asked to remember the name Priya Shah", None),
        ("User asked to keep the answer short", None),
        ("User asked to remember that the standup is at 9:30", None),
        # What was kept, or that something changed, logged without the value (2026-12-04)
        ("User requested: remembered Biscuit's vet clinic", "conversation log"),
        ("Saved the shift pattern", "conversation log"),
        ("The user remembered the rent due date", "conversation log"),
        ("The user remembered the rent is due on the 1st", None),
        ("The user remembers their gym schedule", "conversation log"),
        ("Saves their receipts in a shoebox", None),  # a habit, not what was kept
        ("The user changed the standup time for next week", "conversation log"),
        ("The user updated their preferences", "conversation log"),
        ("Remembered Milo, my cat.", None),
        ("Remembered the venue is Aston Hall in Birmingham.", None),
        ("Remembered poetry writing in free time, mostly sonnets.", None),
        ("Saved Anna's birthday on 3 June", None),
        ("The user changed the default model to Claude Haiku", None),
        ("The user updated their preferences to include metric units", None),
        ("Updated the Q4 marketing budget to 40k", None),
        ("User requested: decision made on framework for billing service.", "conversation log"),
        ("Decision made on FastAPI for the billing service", None),
        ("```markdown", "placeholder"),
        ("Discussed logical replication with the new Postgres version", "conversation log"),
    ],
)
def test_junk_reason(text: str, reason: str | None) -> None:
    assert junk_reason(text) == reason


def test_junk_lines_are_bullets_that_parse_to_nothing() -> None:
    memory = "# Long-term Memory\n\n## Notes\n- \n-\n- (empty)\n- Likes tea\n(empty)\n"
    assert junk_lines(memory) == [(4, "-"), (5, "-"), (6, "- (empty)")]


@pytest.mark.parametrize(
    ("text", "names", "found"),
    [
        ("Prefers Claude Haiku for quick questions", (), "Claude"),
        ("Uses GPT-4o for SQL", (), "GPT-4o"),
        ("Switched to the Haiku model", (), "Haiku"),
        ("Asked whether OneClaw stores chats in the cloud", (), "OneClaw"),
        ("Writes poetry, mostly sonnets and haiku", (), None),
        ("Daughter Gemma starts school in September", (), None),
        ("Uses Gemma 3 for drafts", ("Gemma 3",), "Gemma 3"),
        ("Loves the opus of Mahler", (), None),
        # Names that are also words count only where they are models.
        ("User's laptop is a ThinkPad", (), None),
        ("Is a Gemini, birthday in early June", (), None),
        ("Keeps two llamas on the farm", (), None),
        ("Sails when the mistral blows", (), None),
        ("Reads Shakespeare's Sonnet 18 to the kids", (), None),
        ("Listens to Beethoven's opus 131 while coding", (), None),
        ("Applied for an O1 visa last spring", (), None),
        ("Uses Gemini 2.5 Pro for drafts", (), "Gemini"),
        ("Runs Llama 3 locally for code review", (), "Llama"),
        ("Prefers the Mistral model for French", (), "Mistral"),
        ("Switched to o3-mini for maths", (), "o3-mini"),
        ("Qwen", (), "Qwen"),
        ("Claude Opus to Claude Haiku", (), "Claude"),
        ("Haiku was too terse, back on Sonnet", ("Claude Haiku",), None),
    ],
)
def test_model_name_in(text: str, names: tuple[str, ...], found: str | None) -> None:
    assert model_name_in(text, names) == found


def test_screenshot_overlap_needs_most_of_the_entry_from_one_caption() -> None:
    captions = [
        "Here's my desk setup, what do you think? A desk with a laptop, a mechanical keyboard "
        "and a colorful patterned area rug"
    ]
    assert screenshot_overlap("Desk setup", captions) == captions[0]
    assert screenshot_overlap("Has a colorful patterned area rug", captions) == captions[0]
    assert (
        screenshot_overlap("Prefers a mechanical keyboard for coding every day", captions) is None
    )
    assert screenshot_overlap("Keyboard", captions) is None  # one word is not enough
    assert screenshot_overlap("Backend engineer at a logistics startup", captions) is None
