"""The `support` family's shared vocabulary: categories, their tools, and the phrases every prompt
is built from (so the designs and the policy cannot drift apart)."""

from __future__ import annotations

CATEGORIES = ("billing", "shipping", "account", "technical")
TOOL_OF = {"billing": "get_invoice", "shipping": "track_order", "account": "get_account", "technical": "search_kb"}
ARGS_OF = {"get_invoice": ("customer_id",), "track_order": ("order_id",), "get_account": ("email",),
           "search_kb": ("product", "error_code")}
ID_KIND = {"billing": "customer ID", "shipping": "order number", "account": "account email",
           "technical": "product name and error code"}

MARK = "[support]"  # in every prompt and system prompt of this family
GUIDE = ("Look up each fact with the right tool first (get_invoice for billing, track_order for shipping, "
         "get_account for account access, search_kb for technical errors) and quote the facts exactly as the "
         "tool returns them.")
SYSTEM = f"{MARK} You are a customer support assistant. Be brief and factual."

# Phrases that tell the policy which step a prompt asks for.
TRIAGE = "Step 1 of 3 (triage)"
LOOKUP = "Step 2 of 3 (lookup)"
REPLY = "Step 3 of 3 (reply)"
CLASSIFY = "Classify this ticket"
HANDLER = "You handle {category} tickets"
SECTION = "If the ticket asks about {category}"
PLAN = "List the customer's separate questions"
WORKER = "Answer this one customer question"
SYNTH = "Combine the answers below"
EVALUATE = "Review this reply to the ticket"
ONE_ROUND = "Make all your lookups at once, then answer."
MAX_RETRIES = 2  # the retry instruction's bound: lookups after a question's first one
# The two instructions behind the agent's recoveries; any design may send them (the declared route does).
RETRY = "If a lookup fails, read the error and try again (at most twice per question)."
CHECK = "Before you answer, check that your reply answers every question with a looked-up fact."
# The declared route's steps (see `comparator`), and the transcript they share.
CLASSIFY_EACH = "Classify each question in this ticket"
ARGUMENTS = "Each question keeps its category; write the arguments of its next lookup"
QUESTION = "Question"  # `Question n: category (tool)`, the categories kept for a step that writes arguments only
WRITE = "Write the reply to the customer from the last lookup of each question below"
LOOKUPS = "Lookups so far (question number, category: tool arguments -> result):"
REPLY_SO_FAR = "Reply:"
FAIL = "FAIL:"  # how a judgement that finds a question unanswered starts its note (an evaluator's, or a self-check's)
NONE = "NONE"  # what a parallel section answers when the ticket has no question of its kind

# Phrases of the replies the policy writes, which the evaluator looks for.
SORRY = "could not find"
VAGUE = "looking into it"
