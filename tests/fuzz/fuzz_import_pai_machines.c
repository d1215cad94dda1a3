/* Fuzzes the pai-machines machine list importer (`cpnsim import pai-machines`). */
#define FUZZ_IMPORT_FORMAT "pai-machines"
#include "fuzz_import.h"
