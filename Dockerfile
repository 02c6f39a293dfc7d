FROM python:3.11-slim
WORKDIR /srv/sluice
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
RUN pip install --no-cache-dir -e .
ENV SLUICE_DATA_DIR=/var/lib/sluice
VOLUME /var/lib/sluice
EXPOSE 8080
STOPSIGNAL SIGTERM
ENTRYPOINT ["python", "-m", "app"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
