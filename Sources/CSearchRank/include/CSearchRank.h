#ifndef MARGINALIA_SEARCH_RANK_H
#define MARGINALIA_SEARCH_RANK_H

#include <sqlite3.h>

/// Registers the FTS5 auxiliary function `marginalia_rank` on `db` (see rank.c). Returns an SQLite result code.
int marginalia_register_rank(sqlite3 *db);

#endif
