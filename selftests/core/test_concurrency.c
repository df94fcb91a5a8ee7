// SPDX-License-Identifier: GPL-2.0
/* placeholder replaced below */
