/* Fuzzes the openb job trace importer (`cpnsim import openb`). */
#define FUZZ_IMPORT_FORMAT "openb"
#include "fuzz_import.h"
