"""The `pipeline` family's shared vocabulary: field names, the labels a messy record may use, the
layout, and the phrases every prompt is built from (so the designs and the policy cannot drift).

Both sides need the same words, as a writer and a reader of English do: the family writes
records with these labels, the policy reads them; the designs write prompts with these phrases,
the policy recognises which step it is being asked to do.
"""

from __future__ import annotations

FIELDS = ("name", "dob", "city", "phone", "email")  # a record with `fields=k` has the first k

# How each field's value looks in the normalised line.
LAYOUT = {"name": "Last, First", "dob": "YYYY-MM-DD", "city": "City", "phone": "NNN-NNN-NNNN", "email": "email"}

# The labels a messy record may put before a value (any case, followed by ':', '=' or a space).
ALIASES = {
    "name": ("full name", "customer", "name"),
    "dob": ("date of birth", "birth date", "born", "dob"),
    "city": ("city", "town"),
    "phone": ("phone", "mobile", "tel"),
    "email": ("e-mail", "email", "mail"),
}

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

RULES = ("names and cities in title case (a name written 'last, first' has the surname first); "
         "numeric dates in the record are day/month/year unless the year comes first; "
         "phone numbers as NNN-NNN-NNNN without a country code; email addresses in lower case")

MARK = "[pipeline]"  # in every prompt and system prompt of this family
SYSTEM = f"{MARK} You clean up customer records. Reply tersely, with exactly what is asked."

# Phrases that tell the policy which step a prompt asks for.
EXTRACT = "Step 1 of 3 (extract)"
NORMALISE = "Step 2 of 3 (normalise)"
FORMAT = "Step 3 of 3 (format)"
CLASSIFY = "Is this record already clean"
PLAN = "Plan the work"
WORKER = "Worker subtask:"
SYNTH = "Combine the worker results"
GENERATE = "Write the normalised line for the task below"
EVALUATE = "Evaluate the candidate line"
FIX = "Fix the layout of the line below"
REDO = "Redo the line below"
# The instructions a request may carry, wherever it carries them (system prompt or prompt): each one triggers
# the same behaviour in any design (see the policy).
UNTIL_VALID = "fix it until it is valid"  # re-check after every fix, within the policy's max_checks
SELF_CHECK = "check your line against the record before replying"  # a judgement of a VALID line
SINGLE_HINT = "Check your line once with the check_format tool, then reply with the line only."
AGENT_HINT = (f"Use check_format to verify your line and {UNTIL_VALID}. Once it is valid, {SELF_CHECK}, and redo "
              "any field you doubt. Reply with the line only.")

# What the declared chain's steps quote: the line, the validator's report on it, the reviewer's note on it.
LINE = "Line:"
REPORT = "Validator:"
NOTE = "Reviewer's note:"
JUDGE = (f"{MARK} {EVALUATE} against the record in the task. Reply PASS if it is exactly right; otherwise reply "
         "FAIL: and say what is wrong.\n\nTask:\n{task}\n\nCandidate: {input}")
FIX_PROMPT = (f"{MARK} {FIX}: check_format found its layout INVALID (its report follows). Lay the same values out "
              "again in the layout of the task. Reply with the line only.\n\nTask:\n{task}\n\n{input}")
REDO_PROMPT = (f"{MARK} {REDO}: a reviewer compared it with the record and doubts it (the note follows). Read the "
               "field the note names from the record again, normalise it, and reply with the line with that field "
               "corrected, the others as they are. Reply with the line only.\n\nTask:\n{task}\n\n{input}")


def layout_of(fields: tuple[str, ...] | list[str]) -> str:
    return " | ".join(LAYOUT[f] for f in fields)
