"""The `multihop` family's vocabulary: its marker, the phrases that tell the policy which step a prompt
asks for, and the prompts the designs are built from (so the designs and the policy cannot drift)."""

from __future__ import annotations

MARK = "[multihop]"

# Phrases the family's prompts contain: how a step tells the policy what it is asking for.
AGENT = "as many as you need"
ONE_ROUND = "one round of tool calls, then"
DIRECT = "Answer from the starting document alone"
FOLLOW = "You have just read this document"
CLASSIFY = "reply with one word"
PLAN = "reply with only a JSON array of subtasks"
SYNTHESIZE = "Combine the workers' findings"
GENERATE = "Make one step of progress"
REVIEW = "Reply PASS if"
TRIED = "Already tried from this document"

AGENT_SYSTEM = (f"{MARK} You answer questions about a company knowledge base. Read documents with read_document, "
                f"{AGENT}: follow the references from the starting document until you reach the document that "
                "answers the question; if a document turns out not to fit, go back to the last one that did. "
                "Then reply with only the answer.")
SINGLE_SYSTEM = (f"{MARK} You answer questions about a company knowledge base. You have {ONE_ROUND} you must "
                 "answer from what you read: reply with only the answer, or UNKNOWN: <why>.")
FOLLOW_PROMPT = (f"{MARK} Question: {{task}}\n\n{FOLLOW}:\n<document>\n{{input}}\n</document>\n\n"
                 "If it answers the question, reply `ANSWER: <answer>`. If it is not about the question, reply "
                 "`DEAD END: <why>`. Otherwise reply `NEXT: <doc id>` with the one reference that leads toward "
                 "the answer.")
RETRY_NOTE = (f"{TRIED} (decide again from it; do not follow a reference that did not fit):\n<tried>\n{{tried}}\n"
              "</tried>")
CLASSIFY_PROMPT = (f"{MARK} Before answering, classify this question: {{task}}\n\nRead the starting document with "
                   f"read_document, then {CLASSIFY}: `direct` if that document itself answers the question, "
                   "`follow` if it only refers to other documents.")
DIRECT_PROMPT = (f"{MARK} {DIRECT}: {{task}}\n\nRead it with read_document: you "
                 f"have {ONE_ROUND} reply with only the answer, or UNKNOWN: <why> if it does not say.")
PLAN_PROMPT = (f"{MARK} Plan the work for this question: {{task}}\n\nRead the starting document with read_document, "
               f"then {PLAN}, one per document it refers to, each written \"Follow doc-NNNN and report where it "
               "leads.\"")
SYNTH_PROMPT = (f"{MARK} {SYNTHESIZE} into the final answer.\n\n{{input}}\n\nReply `ANSWER: <answer>` with the "
                "answer a worker found for the question, or `UNKNOWN` if none did.")
REVIEW_PROMPT = (f"{MARK} Check a reply to this question: {{task}}\n\n<reply>\n{{input}}\n</reply>\n\nAn answer is "
                 "right only if the document it quotes says that person is the current owner and the value "
                 f"matches that document. {REVIEW} it is right; otherwise reply `FAIL: <what to do next>`.")


def step_prompt(text: str, task: str) -> str:
    """The evaluator-optimizer's generator: one hop per round, carrying its position in its reply."""
    head = (f"{MARK} Question: {task}\n\n{GENERATE}: read one document with read_document ({ONE_ROUND} reply). "
            "If it answers the question, reply `ANSWER: <answer> (from <doc id>: \"<its first two sentences>\")`; "
            "otherwise reply `NEXT: <doc id> (from <the doc id you read>)` naming the reference to follow next.")
    if text == task:
        return head + "\n\nBegin with the starting document."
    return (head + f"\n\nYour previous reply:\n<reply>\n{text}\n</reply>\n"
            "Reviewer's feedback:\n<feedback>\n{feedback}\n</feedback>")


def follow_prompt(document: str, task: str, tried: list[str]) -> str:
    """The follow step on `document`; `tried`: what following on from it gave so far (a failed read's error, a
    reference that did not fit), one line each, the same content an agent has in its conversation."""
    prompt = FOLLOW_PROMPT.replace("{task}", task).replace("{input}", document)
    if not tried:
        return prompt
    return prompt + "\n\n" + RETRY_NOTE.replace("{tried}", "\n".join(f"- {line}" for line in tried))
