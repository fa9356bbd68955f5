"""Envelope renderers, one module per API family (standard data.go.kr, StanReginCd, 주민등록, …)."""
