"""The comparison table of every tier against the peers (see compare/README.md)."""
