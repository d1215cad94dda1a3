/* main: dispatches to the subcommands (sim/cmd_*.c). Adding a command is one file
 * and one line in the table below. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../base/util.h"

struct command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
};

static const struct command commands[] = {
    {"run", "run one simulation (with no files: the embedded default scenario)", cmd_run},
    {"gen", "generate a job queue (CSV)", cmd_gen},
    {"policies", "list the scheduling policies", cmd_policies},
    {"import", "convert a real trace into a job queue or a cluster", cmd_import},
    {"sweep", "run a parameter grid of runs (resumable) and aggregate it", cmd_sweep},
    {"plot", "draw the figures of a run or a sweep directory (gnuplot)", cmd_plot},
    {"predict", "train the run-time and memory predictor; --eval cross-validates it", cmd_predict},
};

static void usage(FILE *f)
{
    fputs("usage: cpnsim COMMAND [OPTIONS]\n\n"
          "A discrete-event simulator of a wide-area GPU job scheduler.\n\ncommands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("  help       this help, or `cpnsim help COMMAND`\n\n"
          "`cpnsim COMMAND --help` describes each command.\n"
          "Exit status: 0 when the simulation ran to its end (deadlocks and failed jobs are\n"
          "results), 2 for bad input or usage, 1 for any other failure.\n",
          f);
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("cpnsim %s\n", CPN_VERSION);
        return 0;
    }
    if (strcmp(name, "help") == 0) {
        const struct command *c = argc > 2 ? find(argv[2]) : NULL;
        if (c) {
            char *sub[] = {argv[2], (char *)"--help", NULL};
            return c->main(2, sub);
        }
        usage(stdout);
        return 0;
    }
    const struct command *c = find(name);
    if (!c) {
        fprintf(stderr, "cpnsim: unknown command '%s'\n\n", name);
        usage(stderr);
        return 2;
    }
    return c->main(argc - 1, argv + 1);
}
