# Hearts Online server image: python -m app (uvicorn) with migrations in the image.
FROM python:3.11-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/hearts

# Dependencies first, for layer caching.
COPY pyproject.toml ./
RUN mkdir -p app bench && touch app/__init__.py bench/__init__.py \
    && pip install . && pip uninstall -y hearts-online

COPY app ./app
COPY bench ./bench
COPY migrations ./migrations
COPY alembic.ini ./
COPY static ./static
RUN pip install --no-deps . \
    && useradd --system --uid 10001 hearts \
    && mkdir -p /srv/hearts/data && chown hearts /srv/hearts/data
USER hearts

ENV HEARTS_HOST=0.0.0.0 \
    HEARTS_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)" || exit 1
CMD ["python", "-m", "app"]
