"""The `repair` family's vocabulary: the step headers its prompts start with (how the policy tells
the steps apart) and the prompts the designs are built from (so the designs and the policy cannot drift)."""

from __future__ import annotations

MARK = "[repair]"  # in every prompt and system prompt of this family
TASK = "[repair] Task:"
FIX = "[repair] Fix step:"
SPECIALIST = "[repair] Specialist fix"
CLASSIFY = "[repair] Classify:"
PLAN = "[repair] Plan:"
EVALUATE = "[repair] Evaluate:"
PROPOSE = "[repair] Propose:"
SYNTHESIZE = "[repair] Synthesize:"
LABELS = ("syntax", "key", "value")
NO_EDIT = "nothing to fix"

SYSTEM = ("[repair] You repair configuration files so that they pass their validator. Only the validator knows "
          "the schema, and it reports one problem at a time. Use the tools; never claim a file is valid without "
          "validating it.")
PROMPT = (TASK + " the configuration file `{path}` in the working directory fails validation. Fix it: run "
          "validate, fix the problem it reports (replace_line is the simplest edit), and validate again. It reports "
          "one problem at a time, so repeat until it answers OK. Then reply with one line starting with DONE.")
FIX_PROMPT = (FIX + " the file `{path}`. The validator's latest report:\n{{input}}\n\nIf it reports a problem, fix "
              "that line with ONE replace_line call (the report gives the line number) and reply with one sentence "
              "saying what you changed. If it says the file is valid, reply 'Nothing to fix.' and call no tool.")
GENERATOR = (FIX + " the file `{path}`. Your previous output (in the first round, the validator's report):\n{{input}}"
             "\n\nEvaluator feedback (the latest validator report, if any):\n{{feedback}}\n\nFix the latest reported "
             "problem with ONE replace_line call and reply with one sentence saying what you changed.")
WORKER = (FIX + " the file `{path}`. Your subtask:\n{{input}}\n\nFix the problem it quotes with ONE replace_line "
          "call and reply with one sentence saying what you changed.")
SPECIALISTS = {"syntax": "lines that are not in 'key = value' form", "key": "unknown, misspelt or duplicate keys",
               "value": "values that break their rule (type, range or allowed values)"}
SPECIALIST_PROMPT = (SPECIALIST + " ({label}): the file `{path}`. You handle {help}. The validator's report:\n"
                     "{{input}}\n\nIf it is a {label} problem, fix that line with ONE replace_line call and say what "
                     "you changed; otherwise change nothing and say so.")
CLASSIFIER = (CLASSIFY + " which kind of problem does this validator report describe?\n{input}\n\nAnswer with one "
              "word: syntax (a line not in 'key = value' form), key (an unknown, duplicate or missing key) or value "
              "(a value that breaks its rule).")
PLANNER = (PLAN + " the file `{path}` must pass its validator. Run validate once, then plan the fix: reply with a "
           "JSON array of subtasks, one per problem the validator reported, each quoting the problem (line number "
           "and message) so that a worker can fix it with one replace_line call.\n\nTask: {{task}}")
SYNTHESIZER = (SYNTHESIZE + " workers have edited `{path}`; their reports are below. Run validate once and reply "
               "with one line: DONE if it passes, otherwise NOT FIXED and the problem it reports.\n\n{{input}}")
EVALUATOR = (EVALUATE + " a fixer has just edited `{path}` and says:\n{{input}}\n\nRun validate once. Reply PASS if "
             "it answers OK; otherwise reply FAIL followed by the validator's report, word for word.")
PROPOSER = (PROPOSE + " the file `{path}`. The validator's latest report:\n{{input}}\n\nPropose the corrected line. "
            f"Reply with exactly 'replace line N with: <new line>' (N from the report), or '{NO_EDIT}' if the file "
            "is valid.")
