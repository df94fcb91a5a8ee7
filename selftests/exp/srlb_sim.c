// SPDX-License-Identifier: GPL-2.0
/*
 * srlb_sim: a discrete-event simulation of the SRLB experiment
 * (srlb_exp.sh, Documentation/srlb-experiment.rst), to compare acceptance
 * policies over many more requests and seeds than the VM can run.
 *
 * The model is the experiment's: N servers of one worker each serving
 * requests in the order they came (httpd.py with WORKERS=1: a connection
 * waits in the accept queue while the worker is busy), Poisson arrivals at
 * LOAD times their capacity, service times of mean 1 drawn as loadgen.py
 * draws them (exp, wiki).  Each request is offered to K distinct servers
 * drawn at random (the Maglev row of its flow) in order; a server accepts
 * by its policy, the last one always.  A server's count n is its
 * requests not yet served, as a SID counts its connections.
 *
 * Every mode sees the same arrivals, service times and candidates for a
 * seed (streams of their own), as the modes of one PARALLEL run do.
 *
 * Modes: random (K = 1), srC (accept while n < C; C may have a fraction,
 * taken as kmod/srv6/accept.c takes the dyn policy's), dynN (the dyn
 * policy, in accept.c's fixed point), each with an optional suffix kK.
 *
 * usage: srlb_sim [-n SERVERS] [-d exp|wiki] [-l LOAD] [-r REQUESTS]
 *		   [-s SEED] MODE...
 * prints one line per mode: mode, k, load, mean, p50, p99 (in mean
 * service times), the share of accepted offers among those that could be
 * passed on, and the mean threshold at those decisions.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIM_MAX_SERVERS	64
#define SIM_MAX_K	16
#define DYN_ONE		65536		/* accept.c's TM_DYN_ONE */
#define DYN_STEP	(DYN_ONE / 8)	/* accept.c's TM_DYN_STEP */

/* xorshift64*: a stream per purpose, so that modes share arrivals. */
static unsigned long long rng_next(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Uniform in (0, 1). */
static double rng_unit(unsigned long long *s)
{
	return ((rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_exp(unsigned long long *s, double mean)
{
	return -mean * log(rng_unit(s));
}

/* loadgen.py's service times, of mean 1. */
static double service_time(unsigned long long *s, bool wiki)
{
	const double a = 1.5, lo = 1.7, hi = 85;
	double u;

	if (!wiki)
		return rng_exp(s, 1);
	if (rng_unit(s) < 0.85)
		return rng_exp(s, 0.4);
	/* Bounded Pareto by inversion. */
	u = rng_unit(s);
	return lo / pow(1 - u * (1 - pow(lo / hi, a)), 1 / a);
}

struct server {
	double *dep;		/* departure times, FIFO */
	size_t head, tail, cap;
	double last;		/* the last departure */
	int dyn;		/* the dyn threshold, 1/65536 */
};

struct mode {
	char name[32];
	enum { M_RANDOM, M_SR, M_DYN } kind;
	double c;		/* srC */
	int top;		/* dynN, 1/65536 */
	unsigned int k;
};

/* malloc() or exit: a simulation has nothing to fall back on. */
static void *sim_alloc(size_t size)
{
	void *p = malloc(size);

	if (!p) {
		perror("srlb_sim");
		exit(1);
	}
	return p;
}

/* Requests of @srv not yet served at @t. */
static size_t server_n(struct server *srv, double t)
{
	while (srv->head != srv->tail && srv->dep[srv->head % srv->cap] <= t)
		srv->head++;
	return srv->tail - srv->head;
}

/* Queue a request of service @x at @t: its response time. */
static double server_add(struct server *srv, double t, double x)
{
	double start = srv->last > t ? srv->last : t;

	if (srv->tail - srv->head == srv->cap) {
		size_t cap = srv->cap * 2, i;
		double *dep = sim_alloc(cap * sizeof(*dep));

		for (i = srv->head; i != srv->tail; i++)
			dep[i % cap] = srv->dep[i % srv->cap];
		free(srv->dep);
		srv->dep = dep;
		srv->cap = cap;
	}
	srv->last = start + x;
	srv->dep[srv->tail++ % srv->cap] = srv->last;
	return srv->last - t;
}

/* accept.c's tm_dyn_ok: n < floor(c), at floor(c) with c's fraction. */
static bool frac_ok(size_t n, int c, unsigned long long *s)
{
	if (n != (size_t)(c / DYN_ONE))
		return n < (size_t)(c / DYN_ONE);
	return (rng_next(s) >> 32) % DYN_ONE < (unsigned long long)(c % DYN_ONE);
}

static int parse_mode(const char *arg, struct mode *m)
{
	char *end;
	double v = 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", arg);
	m->k = 2;
	if (!strncmp(arg, "random", 6)) {
		m->kind = M_RANDOM;
		end = (char *)arg + 6;
	} else if (!strncmp(arg, "sr", 2) || !strncmp(arg, "dyn", 3)) {
		m->kind = arg[0] == 's' ? M_SR : M_DYN;
		errno = 0;
		v = strtod(arg + (m->kind == M_SR ? 2 : 3), &end);
		if (errno || v < 1 || v > 16384 ||
		    (m->kind == M_DYN && v != floor(v)))
			return -1;
	} else {
		return -1;
	}
	if (*end == 'k') {
		unsigned long k = strtoul(end + 1, &end, 10);

		if (k < 2 || k > SIM_MAX_K)
			return -1;
		m->k = k;
	}
	if (*end)
		return -1;
	if (m->kind == M_RANDOM)
		m->k = 1;
	m->c = v;
	m->top = (int)v * DYN_ONE;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run(const struct mode *m, unsigned int nsrv, bool wiki,
		double load, size_t requests, unsigned long long seed)
{
	unsigned long long arr = seed * 3 + 1, svc = seed * 5 + 2, cand = seed * 7 + 3;
	unsigned long long pol = seed * 11 + 4;
	struct server srv[SIM_MAX_SERVERS] = { 0 };
	size_t warm = requests / 10, i, counted = 0, offers = 0, accepts = 0;
	double t = 0, sum = 0, csum = 0, *resp;
	unsigned int j, s;

	resp = sim_alloc(requests * sizeof(*resp));
	for (s = 0; s < nsrv; s++) {
		srv[s].cap = 64;
		srv[s].dep = sim_alloc(srv[s].cap * sizeof(double));
		srv[s].dyn = m->top;
	}
	for (i = 0; i < requests; i++) {
		unsigned int pick[SIM_MAX_K], take = 0;
		bool used[SIM_MAX_SERVERS] = { false };
		double x, r;

		t += rng_exp(&arr, 1 / (load * nsrv));
		x = service_time(&svc, wiki);
		/* K distinct candidates, drawn whatever the mode's K. */
		for (j = 0; j < SIM_MAX_K && j < nsrv; j++) {
			do
				s = rng_next(&cand) % nsrv;
			while (used[s]);
			used[s] = true;
			pick[j] = s;
		}
		for (j = 0; j < m->k; j++) {
			struct server *v = &srv[pick[j]];
			size_t n = server_n(v, t);
			int c = m->kind == M_SR ? (int)(m->c * DYN_ONE) : v->dyn;
			bool ok;

			take = pick[j];
			if (j == m->k - 1)
				break;
			ok = frac_ok(n, c, &pol);
			if (m->kind == M_DYN) {
				int step = DYN_STEP / (int)m->k - (ok ? DYN_STEP : 0);

				v->dyn += step;
				if (v->dyn < DYN_ONE)
					v->dyn = DYN_ONE;
				if (v->dyn > m->top)
					v->dyn = m->top;
			}
			if (i >= warm) {
				offers++;
				accepts += ok;
				csum += (double)c / DYN_ONE;
			}
			if (ok)
				break;
		}
		r = server_add(&srv[take], t, x);
		if (i >= warm) {
			resp[counted++] = r;
			sum += r;
		}
	}
	qsort(resp, counted, sizeof(*resp), cmp_double);
	printf("mode=%s k=%u load=%.3f mean=%.4f p50=%.4f p99=%.4f accept=%.4f c=%.3f\n",
	       m->name, m->k, load, sum / counted, resp[counted / 2],
	       resp[(size_t)(counted * 0.99)],
	       offers ? (double)accepts / offers : 1,
	       offers ? csum / offers : 0);
	for (s = 0; s < nsrv; s++)
		free(srv[s].dep);
	free(resp);
}

/*
 * @arg as a positive number (a whole one if @whole), all of it, else 0,
 * which every option refuses.
 */
static double num_arg(const char *arg, bool whole)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0 && v < 1e15) ||
	    (whole && v != floor(v)))
		return 0;
	return v;
}

static void help_exit(void)
{
	fprintf(stderr,
		"usage: srlb_sim [-n SERVERS] [-d exp|wiki] [-l LOAD] [-r REQUESTS] [-s SEED] MODE...\n"
		"  MODE: random, srC or dynN, with an optional suffix kK (choices)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long nsrv = 4, seed = 1, requests = 1000000;
	double load = 0.9;
	bool wiki = false;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:d:l:r:s:")) != -1) {
		switch (opt) {
		case 'n':
			nsrv = num_arg(optarg, true);
			break;
		case 'd':
			if (strcmp(optarg, "exp") && strcmp(optarg, "wiki")) {
				fprintf(stderr, "srlb_sim: unknown distribution '%s' (exp, wiki)\n",
					optarg);
				return 2;
			}
			wiki = !strcmp(optarg, "wiki");
			break;
		case 'l':
			load = num_arg(optarg, false);
			break;
		case 'r':
			requests = num_arg(optarg, true);
			break;
		case 's':
			seed = num_arg(optarg, true);
			break;
		default:
			help_exit();
		}
	}
	if (optind == argc)
		help_exit();
	if (nsrv < 1 || nsrv > SIM_MAX_SERVERS || !(load > 0 && load < 1) ||
	    requests < 100 || !seed) {
		fprintf(stderr, "srlb_sim: need 1..%d servers, a load in (0, 1), %s\n",
			SIM_MAX_SERVERS, "100 requests or more and a seed > 0");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		struct mode m;

		if (parse_mode(argv[i], &m) || m.k > nsrv) {
			fprintf(stderr, "srlb_sim: bad mode '%s' (%s %d and at most the servers)\n",
				argv[i], "random, srC with C in 1..16384, dynN; suffix kK, K 2 to",
				SIM_MAX_K);
			return 2;
		}
		run(&m, nsrv, wiki, load, requests, seed);
	}
	return 0;
}
