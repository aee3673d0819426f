"""Studies: experiments built from several sweeps and their criterion tables.

`sweep.py` varies one axis (a model knob, the margin, the instance count) and says where verdicts flip;
`stability.py` reruns the default sweep on other seeds; `audit.py` probes the simulator for asymmetries
between agent-framed and step-framed requests; `planning.py` and `plan_sim.py` size a run before it is
paid for.
"""
