/* Fuzzes the gavel job trace importer (`cpnsim import gavel`). */
#define FUZZ_IMPORT_FORMAT "gavel"
#include "fuzz_import.h"
