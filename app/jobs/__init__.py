"""Background jobs an instance runs beside its tables: game reviews (app.jobs.review)."""
