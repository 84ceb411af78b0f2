"""The matchmaking service: tickets, queues, parties and teams, grouping by rating, bots."""
