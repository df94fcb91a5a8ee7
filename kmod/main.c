// SPDX-License-Identifier: GPL-2.0
/*
 * tuplemerge.ko entry points: bring the subsystems up in dependency order and
 * take them down in reverse.  Nothing else lives here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

static int __init tm_init(void)
{
	int err;

	err = tm_table_init();
	if (err)
		return err;
	err = tm_netns_init();
	if (err)
		goto err_table;
	err = tm_txn_init();
	if (err)
		goto err_netns;
	err = tm_genl_init();
	if (err)
		goto err_txn;

#ifdef TM_FAULT_WARN_INIT
	/* Injected fault: the VM runner must report this and fail. */
	WARN(1, "injected fault: warning in module init\n");
#endif
	pr_debug("loaded\n");
	return 0;

err_txn:
	tm_txn_exit();
err_netns:
	tm_netns_exit();
err_table:
	tm_table_exit();
	return err;
}

static void __exit tm_exit(void)
{
	tm_genl_exit();
	tm_txn_exit();
	tm_netns_exit();
	tm_rule_exit();
	tm_lb_exit();
	tm_table_exit();
	pr_debug("unloaded\n");
}

module_init(tm_init);
module_exit(tm_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(TM_VERSION);
MODULE_DESCRIPTION("TupleMerge packet classifier and SRv6 load balancer");
MODULE_AUTHOR("The tuplemerge developers");
MODULE_ALIAS_GENL_FAMILY(TM_GENL_NAME);
