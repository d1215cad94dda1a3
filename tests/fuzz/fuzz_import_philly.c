/* Fuzzes the philly job trace importer (`cpnsim import philly`). */
#define FUZZ_IMPORT_FORMAT "philly"
#include "fuzz_import.h"
