// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl -j -f FILE: JSON files (tmctl.h: tm_json_commands()).  Not read
 * yet: every JSON file is refused.
 */
#include "tmctl.h"

int tm_json_commands(const char *file, const char *text, size_t len,
		     tm_json_emit_fn emit, void *ctx, struct tm_json **state)
{
	*state = NULL;
	fprintf(stderr, "%s: error: JSON files are not read yet\n", file);
	return TMCTL_EPARSE;
}

void tm_json_free(struct tm_json *state)
{
}
