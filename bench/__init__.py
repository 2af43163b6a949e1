"""apollod's measuring tools: servers, load, counts, start-up, files (see bench/BUILD)."""
