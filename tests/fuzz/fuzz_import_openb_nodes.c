/* Fuzzes the openb-nodes machine list importer (`cpnsim import openb-nodes`). */
#define FUZZ_IMPORT_FORMAT "openb-nodes"
#include "fuzz_import.h"
