#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad rule requests: each gets its own error and extack message from the
# kernel and changes nothing; unprivileged callers cannot change rules.
# The checks are in rule_errors.py (one Python process: starting Python
# under the emulated VM costs seconds); this sets up the namespace.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3
require_module

ns1=''
setup_ns ns1 || exit "$ksft_fail"
ip netns exec "$ns1" python3 "$TM_TOP/selftests/rule_errors.py"
