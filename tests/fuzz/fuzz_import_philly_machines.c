/* Fuzzes the philly-machines machine list importer (`cpnsim import philly-machines`). */
#define FUZZ_IMPORT_FORMAT "philly-machines"
#include "fuzz_import.h"
