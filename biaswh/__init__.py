"""The top of the house: the ``biaswh`` command, the study pipeline that chains the layers, the
ad hoc SQL shell and the inspection commands. Nothing below imports it."""
