"""The reliability and security campaign of issue 17, as code the tests and bench/campaign.py share.

- leaks.py: bot games through the pure engines; every view and every projected record, for
  every seat and the spectator, checked against the secrets of the encoded state.
- fuzz.py: hypothesis strategies against the gRPC surface of running rules and dice services.
- faults.py: services as processes, SIGKILLed in turn while matches are played, NATS frozen,
  the campaign's own PostgreSQL cluster stopped and started; the ledger of
  acknowledged actions against what was stored.
"""
